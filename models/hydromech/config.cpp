#include "models/hydromech/config.hpp"

#include <cmath>
#include <string>

namespace staghorn::hydromech {

Material material_from(const io::json& c) {
  Material m;
  m.k0 = io::at_path(c, "hydromech.permeability.k0").get<real>();
  m.n = io::at_path(c, "hydromech.permeability.exponent").get<real>();
  m.n_int = (m.n == std::floor(m.n) && m.n < 16) ? static_cast<int>(m.n) : -1;
  m.eta0 = io::at_path(c, "hydromech.bulk_viscosity.eta0").get<real>();
  m.m = io::at_path(c, "hydromech.bulk_viscosity.exponent").get<int>();
  m.weakening = io::at_path(c, "hydromech.bulk_viscosity.decompaction_weakening").get<real>();
  m.smoothing = io::at_path(c, "hydromech.bulk_viscosity.smoothing").get<real>();
  m.reta0 = 1 / m.eta0;
  m.rsmoothing = m.smoothing > 0 ? 1 / m.smoothing : 0;
  m.phi0 = io::at_path(c, "hydromech.phi0").get<real>();
  m.rphi0 = 1 / m.phi0;
  m.buoyancy = io::at_path(c, "hydromech.buoyancy").get<real>();
  return m;
}

PeBcs pe_bcs_from(const io::json& c) {
  const char* sides[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  PeBcs bcs;
  for (int s = 0; s < 6; ++s) {
    const std::string p = std::string("hydromech.boundary.") + sides[s];
    bcs[s] = {parse_pe_bc(io::at_path(c, p + ".type").get<std::string>()),
              io::at_path(c, p + ".value").get<real>()};
  }
  return bcs;
}

}  // namespace staghorn::hydromech
