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
  m.buoyancy = buoyancy_from(c);
  return m;
}

// B from hydromech.buoyancy, or (rho_s - rho_f) g from the densities and gravity (all three),
// else 1.
real buoyancy_from(const io::json& c) {
  const io::json& b = io::at_path(c, "hydromech.buoyancy");
  const char* keys[3] = {"hydromech.density.solid", "hydromech.density.fluid", "hydromech.gravity"};
  int given = 0;
  for (const char* k : keys) given += !io::at_path(c, k).is_null();
  if (given == 0) return b.is_null() ? real(1) : b.get<real>();
  if (!b.is_null())
    throw io::ConfigError(
        "hydromech.buoyancy: set either it or hydromech.density.solid, hydromech.density.fluid "
        "and hydromech.gravity, not both");
  for (const char* k : keys)
    if (io::at_path(c, k).is_null())
      throw io::ConfigError(std::string(k) +
                            ": needed with the other density and gravity keys (the buoyancy is "
                            "(rho_s - rho_f) g)");
  const real rho_s = io::at_path(c, keys[0]).get<real>();
  const real rho_f = io::at_path(c, keys[1]).get<real>();
  if (!(rho_f < rho_s))
    throw io::ConfigError("hydromech.density.fluid: " + io::at_path(c, keys[1]).dump() +
                          " must be below hydromech.density.solid (" +
                          io::at_path(c, keys[0]).dump() + "): the fluid must be buoyant");
  return (rho_s - rho_f) * io::at_path(c, keys[2]).get<real>();
}

std::optional<real> optional_number(const io::json& c, const std::string& path) {
  const io::json& v = io::at_path(c, path);
  if (v.is_null()) return std::nullopt;
  return v.get<real>();
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
