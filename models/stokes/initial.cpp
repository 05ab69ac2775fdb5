// Initial state, evaluated once on the host over the whole padded block (ghosts included, so that
// prescribed walls start with consistent values): material from the matrix, the inclusion and the
// phases of stokes.materials (models/materials), and the background pure-shear velocity field.
#include <cmath>

#include "models/materials/host_fill.hpp"
#include "models/materials/materials.hpp"
#include "models/stokes/stokes.hpp"

namespace staghorn::stokes {
namespace {

using materials::Property;

// stokes.inclusion as the first phase, painted before the listed ones (the same points, tests and
// mixing as when it was the only one: bit-identical fields).
materials::PhaseOptions inclusion_phase(const Stokes::Options::Inclusion& in, const real mid[3]) {
  materials::PhaseOptions p;
  p.key = "stokes.inclusion";
  p.shape = materials::Shape::sphere;
  p.center = in.center.value_or(std::array<real, 3>{mid[0], mid[1], mid[2]});
  p.radius = in.radius;
  p.rotation = {0, 0, 0};
  p.seed = 0;
  p.values[static_cast<int>(Property::viscosity)] = in.viscosity;
  p.values[static_cast<int>(Property::density)] = in.density;
  return p;
}

// The buoyancy stress of the density contrasts: each phase's over its size, a file's range over
// the domain's largest side.
real buoyancy_stress(const materials::Materials& m, real rho0, real gnorm, real lmax) {
  real s = 0;
  for (const materials::Phase& p : m.phases())
    if (const auto& rho = p.values[static_cast<int>(Property::density)])
      s = std::fmax(s, std::fabs(*rho - rho0) * gnorm * p.size);
  if (m.from_file(Property::density))
    s = std::fmax(s,
                  (m.file_max(Property::density) - m.file_min(Property::density)) * gnorm * lmax);
  return s;
}

}  // namespace

void Stokes::set_initial() {
  using materials::set_field;
  const Grid& g = dec_.grid();
  const Options::Inclusion& in = opt_.inclusion;
  real mid[3], centre[3];
  for (int a = 0; a < 3; ++a) {
    mid[a] = g.origin[a] + g.length[a] / 2;
    centre[a] = in.center ? (*in.center)[a] : mid[a];
  }
  const real mu0 = opt_.viscosity, rho0 = opt_.density;
  const real shear = opt_.pure_shear;
  materials::Options mo = opt_.materials;
  if (in.radius > 0) mo.phases.insert(mo.phases.begin(), inclusion_phase(in, mid));
  // Cells cut by interfaces mix the materials by their volume fractions: harmonically for the
  // viscosity, arithmetically for the density.
  const materials::Materials mat(mo, g, {mu0, rho0, 0, 0}, mo.subsamples.value_or(in.subsamples));
  mat.fill(mu_, dec_, Property::viscosity);
  mat.fill(rho_, dec_, Property::density);
  if (power_) {
    // The flow law of the material at the cell's centre (eta0: the mixed mu, after smoothing; set
    // by the constructor).
    const PowerLawOptions& pl = opt_.power_law;
    auto law = [&](const real* x) {
      real r2 = 0;
      for (int a = 0; a < g.dims(); ++a) r2 += (x[a] - centre[a]) * (x[a] - centre[a]);
      return r2 < in.radius * in.radius ? pl.inclusion : pl.matrix;
    };
    set_field(power_->n, dec_, [&](const real* x) { return law(x).n; });
    set_field(power_->eps_ref, dec_, [&](const real* x) { return law(x).eps_ref; });
  }
  // Pure shear about the domain's centre: v = shear * (x - xc, -(y - yc), 0).
  set_field(V_[0], dec_, [&](const real* x) { return shear * (x[0] - mid[0]); });
  set_field(V_[1], dec_, [&](const real* x) { return -shear * (x[1] - mid[1]); });
  for (int side = 0; side < 6; ++side) {
    const int a = side / 2;
    const real wall = g.origin[a] + (side % 2) * g.length[a];
    walls_.normal[side] =
        a == 0 ? shear * (wall - mid[0]) : (a == 1 ? -shear * (wall - mid[1]) : 0);
  }

  // Stress scale of the residual norms: the larger of the background shear stress and the buoyancy
  // stress of the inclusions (else of the whole domain's density).
  const std::array<real, 3>& gravity = opt_.pt.gravity;
  const real gnorm =
      std::hypot(std::hypot(gravity[0], gravity[1]), gravity[2]);  // 1e160 squared would overflow
  real lmax = 0;
  for (int a = 0; a < g.dims(); ++a) lmax = std::fmax(lmax, g.length[a]);
  real s = std::fmax(2 * mu0 * std::fabs(shear), buoyancy_stress(mat, rho0, gnorm, lmax));
  if (s == 0) s = std::fabs(rho0) * gnorm * lmax;
  stress_scale_ = s > 0 ? s : 1;
  mu_scale_ = mu0;
}

}  // namespace staghorn::stokes
