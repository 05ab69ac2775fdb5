// Initial state, evaluated once on the host over the whole padded block (ghosts included, so that
// prescribed walls start with consistent values): material from a matrix and one inclusion, and
// the background pure-shear velocity field.
#include <cmath>

#include "models/stokes/stokes.hpp"

namespace staghorn::stokes {
namespace {

// The inclusion: a disc (2-D) or ball (3-D).
struct Inclusion {
  real radius = 0;
  real center[3] = {0, 0, 0};
  bool contains(const Grid& g, const real x[3]) const {
    real r2 = 0;
    for (int a = 0; a < g.dims(); ++a) {
      real d = x[a] - center[a];
      if (g.periodic[a]) d -= g.length[a] * std::round(d / g.length[a]);  // nearest image
      r2 += d * d;
    }
    return r2 < radius * radius;
  }
  // Fraction of the cell around x (spacing h) inside, from s^dims sample points (s = 1: the
  // centre decides).
  real fraction(const Grid& g, const real x[3], int s) const {
    int in = 0, total = 0;
    const int sz = g.dims() >= 3 ? s : 1;
    for (int c = 0; c < sz; ++c)
      for (int b = 0; b < s; ++b)
        for (int a = 0; a < s; ++a) {
          const int q[3] = {a, b, c};
          real y[3] = {x[0], x[1], x[2]};
          for (int ax = 0; ax < g.dims(); ++ax)
            y[ax] += ((q[ax] + real(0.5)) / s - real(0.5)) * g.spacing(ax);
          in += contains(g, y) ? 1 : 0;
          ++total;
        }
    return real(in) / total;
  }
};

// Evaluates f(x) at every point of the padded block of a field at location `loc`.
template <class F>
void set_field(Field& field, const Decomposition& dec, F f) {
  const Grid& g = dec.grid();
  const Layout& l = field.layout();
  std::vector<real> host = field.to_host();
  const Region all = l.all();
  const Int3 off = dec.offset();
  for (int k = all.lo.z; k < all.hi.z; ++k)
    for (int j = all.lo.y; j < all.hi.y; ++j)
      for (int i = all.lo.x; i < all.hi.x; ++i) {
        const int idx[3] = {i + off.x, j + off.y, k + off.z};
        real x[3];
        for (int a = 0; a < 3; ++a) x[a] = g.coordinate(field.location(), a, idx[a]);
        host[l.index(i, j, k)] = f(x);
      }
  field.from_host(host);
}

}  // namespace

void Stokes::set_initial() {
  const Grid& g = dec_.grid();
  const Options::Inclusion& in = opt_.inclusion;
  Inclusion inc;
  inc.radius = in.radius;
  real mid[3];
  for (int a = 0; a < 3; ++a) {
    mid[a] = g.origin[a] + g.length[a] / 2;
    inc.center[a] = in.center ? (*in.center)[a] : mid[a];
  }
  const real mu0 = opt_.viscosity, mui = in.viscosity;
  const real rho0 = opt_.density, rhoi = in.density;
  const real shear = opt_.pure_shear;
  // Cells cut by the interface mix the two materials by their volume fractions: harmonically for
  // the viscosity, arithmetically for the density.
  const int sub = in.subsamples;
  set_field(mu_, dec_, [&](const real* x) {
    const real f = inc.fraction(g, x, sub);
    return 1 / (f / mui + (1 - f) / mu0);
  });
  set_field(rho_, dec_, [&](const real* x) {
    const real f = inc.fraction(g, x, sub);
    return f * rhoi + (1 - f) * rho0;
  });
  if (power_) {
    // The flow law of the material that fills most of the cell (eta0: the mixed mu, after
    // smoothing; set by the constructor).
    const PowerLawOptions& pl = opt_.power_law;
    auto law = [&](const real* x) {
      return inc.fraction(g, x, sub) >= real(0.5) ? pl.inclusion : pl.matrix;
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
  // stress of the inclusion (else of the whole domain's density).
  const std::array<real, 3>& gravity = opt_.pt.gravity;
  const real gnorm =
      std::hypot(std::hypot(gravity[0], gravity[1]), gravity[2]);  // 1e160 squared would overflow
  real lmax = 0;
  for (int a = 0; a < g.dims(); ++a) lmax = std::fmax(lmax, g.length[a]);
  real s = 2 * mu0 * std::fabs(shear);
  if (inc.radius > 0) s = std::fmax(s, std::fabs(rhoi - rho0) * gnorm * inc.radius);
  if (s == 0) s = std::fabs(rho0) * gnorm * lmax;
  stress_scale_ = s > 0 ? s : 1;
  mu_scale_ = mu0;
  set_stiff_inclusion(inc.center, inc.radius);
}

// The automatic gain: measured at 32^2 (docs/models/stokes.md), 30 suits a contrast of 1e2, 100
// those of 1e3 and 1e4; 100 for 1e2 and 1000 for 1e4 diverge.
void Stokes::set_stiff_inclusion(const real centre[3], real radius) {
  const real mu0 = opt_.viscosity, mui = opt_.inclusion.viscosity;
  const Grid& g = dec_.grid();
  real dx = 0;
  for (int a = 0; a < g.dims(); ++a) dx = std::fmax(dx, g.spacing(a));
  // Automatic: a resolved (radius >= 4 cells), at least 10x stiffer inclusion. Below 4 cells the
  // smoothed rim is most of the body, and the acceleration made the solve diverge.
  const real ratio = mui / mu0;
  const bool resolved = radius >= 4 * dx;
  // The cap grows slowly beyond 1e4 (measured best at 32^2: ~200 for 1e5, ~300 for 1e6).
  const real cap = 100 * std::fmax(real(1), std::pow(ratio / real(1e4), real(0.25)));
  const real gain = opt_.inclusion.rigid_acceleration.value_or(
      ratio >= 10 && resolved ? std::fmin(real(0.3) * (ratio - 1), cap) : 0);
  if (gain <= 0 || radius <= 0 || ratio <= 1) return;
  for (int a = 0; a < g.dims(); ++a)
    if (g.periodic[a] &&
        (centre[a] - radius < g.origin[a] || centre[a] + radius > g.origin[a] + g.length[a]))
      throw io::ConfigError(
          "stokes.inclusion.rigid_acceleration: the inclusion crosses the periodic boundary of "
          "axis " +
          std::to_string(a) + "; set it to 0");
  // The body: every cell at least twice as viscous as the matrix (the smoothed or cut rim
  // included; measured, a threshold at the geometric mean of the two viscosities converged 3x
  // slower). Smoothing spreads the jump over ~sqrt(passes) cells: the body's box covers that.
  const int passes = opt_.smoothing;
  const int margin = 2 + static_cast<int>(std::ceil(2 * std::sqrt(real(passes))));
  stiff_ = StiffInclusion{{centre[0], centre[1], centre[2]}, radius, 2 * mu0, gain, margin};
}

}  // namespace staghorn::stokes
