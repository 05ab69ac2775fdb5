#pragma once
// The keys of a power-law viscosity, under a prefix (stokes.power_law, hydromech.coupled.power_law):
// the stress exponent and reference strain rate of the matrix, the caps, the log-space relaxation
// and the update interval. One reader for every model that uses the power-law operators of
// power_law_ops.hpp.

#include <string>

#include "io/schema.hpp"
#include "models/staggered_stokes/power_law_ops.hpp"

namespace staghorn::stokes {

struct PowerLawKeys {
  real n = 1, eps_ref = 1;  // stress exponent (1: Newtonian), reference strain rate
  ViscosityUpdate update;   // eta_min, eta_max (0: none), relaxation theta
  int interval = 1;         // PT iterations between viscosity updates

  // prefix.{n, eps_ref, eta_min, eta_max, relaxation, interval}; `eta0` names what the law's
  // reference viscosity is (in the descriptions); `relaxation`: the default relaxation, which
  // the coupled equations need smaller than Stokes alone.
  static void add_to(io::Schema& schema, const std::string& prefix, const std::string& eta0,
                     double relaxation = 0.5);
  // ConfigError naming prefix.eta_max when the caps are in the wrong order.
  static PowerLawKeys from(const io::json& config, const std::string& prefix);
};

}  // namespace staghorn::stokes
