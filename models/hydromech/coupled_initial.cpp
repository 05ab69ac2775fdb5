// Initial conditions of the coupled variant, evaluated once on the host at cell centres.
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "models/hydromech/background_porosity.hpp"
#include "models/hydromech/coupled.hpp"
#include "models/hydromech/initial_shape.hpp"
#include "models/hydromech/solitary_wave.hpp"

namespace staghorn::hydromech {
namespace {

// The 1-D solitary wave's assumptions: the reduced variant's, and a viscous matrix.
void require_wave(const Material& m, real shear_modulus, real amplitude,
                  const BackgroundPorosity& background) {
  require_solitary_wave(m, amplitude, background);
  if (shear_modulus != 0)
    throw io::ConfigError(
        "hydromech.coupled.shear_modulus: the solitary_wave initial condition needs a viscous "
        "matrix (0)");
}

}  // namespace

// gaussian and uniform as in the reduced variant (pressures and velocities 0: the first step
// solves them); solitary_wave: the exact 1-D wave of the coupled equations (docs: the reduced
// wave with compaction length sqrt(k0 (eta0 + 4/3 eta_s))) and its pressures as a first guess.
void CoupledHydroMech::set_initial(const io::json& ic) {
  const Grid& g = dec_.grid();
  const InitialShape shape(ic, g);
  const BackgroundPorosity background(opt_.materials, g, opt_.mat);
  if (shape.type == "solitary_wave")
    require_wave(opt_.mat, opt_.shear.G, shape.amplitude, background);
  const SolitaryWave wave{shape.amplitude};
  const real delta = compaction_length();
  // 1-D: Pe_eff = (1 + 4 eta_s / (3 eta0)) Pe obeys the reduced equations; p = -(4/3) eta_s / eta0
  // Pe up to a constant.
  const real shear = real(4) / 3 * opt_.shear.mu0 / opt_.mat.eta0;

  std::vector<real> phi = phi_.to_host(), P = P_.to_host(), Pf = Pf_.to_host();
  std::vector<real> mu = mu_s_.to_host();
  std::string outside;  // the first cell whose porosity is not a fraction (two-phase system)
  const Int3 n = layout_.n, off = dec_.offset();
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j)
      for (int i = 0; i < n.x; ++i) {
        const int idx[3] = {i + off.x, j + off.y, k + off.z};
        real d[3];
        const real r2 = shape.offset(g, idx, d);
        const std::size_t c = layout_.index(i, j, k);
        phi[c] = background.at(cell_centre(g, idx).data());
        P[c] = Pf[c] = 0;
        if (shape.type == "gaussian") phi[c] *= 1 + shape.amplitude * std::exp(-r2 / 2);
        if (shape.type == "solitary_wave") {
          double f, scaled;
          wave.at(d[up_] / delta, f, scaled);
          phi[c] = opt_.mat.phi0 * f;
          const real Pe = opt_.mat.buoyancy * delta * scaled / (1 + shear);
          P[c] = -shear * Pe;
          Pf[c] = P[c] - Pe;
        }
        if (opt_.two_phase && !(phi[c] > 0 && phi[c] < 1) && outside.empty())
          outside = std::to_string(phi[c]) + " at cell (" + std::to_string(idx[0]) + ", " +
                    std::to_string(idx[1]) + ", " + std::to_string(idx[2]) + ")";
        // The creep viscosity a first step starts from: the porosity's part of the law.
        mu[c] = opt_.shear.porosity_part(phi[c]);
      }
  // Every rank refuses together (a rank alone would leave the others waiting).
  if (dec_.comm().max(outside.empty() ? 0.0 : 1.0) > 0)
    throw io::ConfigError(
        "hydromech.initial: the initial porosity must lie within (0, 1) in the two-phase system "
        "(hydromech.coupled.physics = two_phase)" +
        (outside.empty() ? std::string() : ": " + outside));
  mu_s_.from_host(mu);
  phi_.from_host(phi);
  P_.from_host(P);
  Pf_.from_host(Pf);
}

}  // namespace staghorn::hydromech
