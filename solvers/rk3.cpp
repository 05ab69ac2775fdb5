#include "solvers/rk3.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/comm.hpp"
#include "core/error.hpp"

namespace staghorn::rk3 {

void Options::add_to(io::Schema& s) {
  using io::Type;
  s.add("rk3.timestep", Type::string, "cfl",
        "How time.dt is integrated: cfl (split into the fewest equal RK3 steps within the "
        "advective and diffusive limits, evaluated at the start of each time.dt) or fixed (one RK3 "
        "step of time.dt; refused at the start when above the stable step, see "
        "rk3.allow_unstable)")
      .one_of({"cfl", "fixed"});
  s.add("rk3.allow_unstable", Type::boolean, false,
        "With rk3.timestep=fixed: run even when time.dt exceeds the stable step of the initial "
        "state (else the run is refused before it starts)");
  s.add("rk3.cdt", Type::number, 0.4,
        "Advective safety factor: dt <= cdt / max sum_a (|u_a| + c_fast) / dx_a")
      .above(0)
      .at_most(1.0);
  s.add("rk3.cdtv", Type::number, 0.25,
        "Diffusive safety factor: dt <= cdtv / (max diffusivity * sum_a 1 / dx_a^2)")
      .above(0)
      .at_most(1.0);
}

Options Options::from(const io::json& c) {
  Options o;
  o.step = io::at_path(c, "rk3.timestep").get<std::string>() == "fixed" ? Step::fixed : Step::cfl;
  o.cdt = io::at_path(c, "rk3.cdt").get<real>();
  o.cdtv = io::at_path(c, "rk3.cdtv").get<real>();
  o.allow_unstable = io::at_path(c, "rk3.allow_unstable").get<bool>();
  return o;
}

real stable_dt(const Options& o, const Limits& l) {
  const real a = l.advective / o.cdt, d = l.diffusive / o.cdtv;
  if (std::isnan(a) || std::isnan(d)) return std::nan("");  // a broken state has no stable step
  const real rate = std::fmax(a, d);
  return rate > 0 ? 1 / rate : std::numeric_limits<real>::infinity();
}

namespace {
std::string g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}
}  // namespace

void check_fixed_step(Problem& p, const Options& o, real dt) {
  if (o.step != Options::Step::fixed || o.allow_unstable) return;
  const real limit = stable_dt(o, p.limits());
  if (!(dt > limit)) return;  // NaN limit: a non-finite state, which the run reports itself
  throw io::ConfigError("time.dt: " + g(dt) + " is above the stable RK3 step " + g(limit) +
                        " of the initial state (rk3.timestep=fixed would only produce NaN); "
                        "lower time.dt, use rk3.timestep=cfl, or set rk3.allow_unstable=true");
}

void step(Problem& p, real dt) {
  for (int s = 0; s < kStages; ++s) p.stage(s, kAlpha[s], kBeta[s], dt);
  note_progress();  // a time.dt of many stable steps makes no reduction between them
}

int advance(Problem& p, const Options& o, real dt) {
  int n = 1;
  if (o.step == Options::Step::cfl) {
    const real limit = stable_dt(o, p.limits());
    if (!(limit > 0)) throw NumericalError("rk3: no stable time step (state is not finite)");
    // A ratio within rounding of an integer must not add a step.
    n = std::max(1, static_cast<int>(std::ceil(dt / limit * (1 - 1e-12))));
  }
  for (int i = 0; i < n; ++i) step(p, dt / n);
  return n;
}

}  // namespace staghorn::rk3
