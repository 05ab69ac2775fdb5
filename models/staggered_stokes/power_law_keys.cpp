#include "models/staggered_stokes/power_law_keys.hpp"

namespace staghorn::stokes {

void PowerLawKeys::add_to(io::Schema& s, const std::string& prefix, const std::string& eta0,
                          double relaxation) {
  using io::Type;
  s.add(prefix + ".n", Type::number, 1.0,
        "Stress exponent n of the power-law viscosity eta = eta0 (eps_II / eps_ref)^(1/n - 1), "
        "eta0 = " +
            eta0 + ", eps_II = sqrt(eps_ij eps_ij / 2) of the deviatoric strain rate; 1: Newtonian "
                   "(no cost)")
      .at_least(1)
      .at_most(100);
  s.add(prefix + ".eps_ref", Type::number, 1.0,
        "Reference strain rate of the power law (where eta = eta0)")
      .above(0);
  s.add(prefix + ".eta_min", Type::number, 0.0, "Lower bound on the viscosity (0: none)")
      .at_least(0);
  s.add(prefix + ".eta_max", Type::number, nullptr,
        "Upper bound on the viscosity (null: none; with n > 1 a region at rest has an unbounded "
        "viscosity, and the iterations slow down as the viscosity contrast grows)")
      .above(0);
  s.add(prefix + ".relaxation", Type::number, relaxation,
        "Relaxation theta of each viscosity update in log space, mu <- mu^(1-theta) eta^theta "
        "(1: no relaxation)")
      .above(0)
      .at_most(1);
  s.add(prefix + ".interval", Type::integer, 1,
        "PT iterations between viscosity updates (each update: one pass over the cells and two "
        "halo exchanges)")
      .at_least(1);
}

PowerLawKeys PowerLawKeys::from(const io::json& c, const std::string& prefix) {
  using io::at_path;
  PowerLawKeys o;
  o.n = at_path(c, prefix + ".n").get<real>();
  o.eps_ref = at_path(c, prefix + ".eps_ref").get<real>();
  o.update.eta_min = at_path(c, prefix + ".eta_min").get<real>();
  if (const io::json& v = at_path(c, prefix + ".eta_max"); !v.is_null())
    o.update.eta_max = v.get<real>();
  if (o.update.eta_max > 0 && o.update.eta_max <= o.update.eta_min)
    throw io::ConfigError(prefix + ".eta_max: " + at_path(c, prefix + ".eta_max").dump() +
                          " must be above " + prefix + ".eta_min (" +
                          at_path(c, prefix + ".eta_min").dump() + ")");
  o.update.theta = at_path(c, prefix + ".relaxation").get<real>();
  o.interval = at_path(c, prefix + ".interval").get<int>();
  return o;
}

}  // namespace staghorn::stokes
