#pragma once
// Williamson (1980) 2N-storage third-order Runge-Kutta with the Pencil Code's coefficients: per
// stage l, w = alpha_l w + dt F(f); f = f + beta_l w. Only f and w are kept per variable.

#include <string>

#include "core/platform.hpp"
#include "io/schema.hpp"

namespace staghorn::rk3 {

constexpr int kStages = 3;
constexpr real kAlpha[kStages] = {0.0, -5.0 / 9, -153.0 / 128};
constexpr real kBeta[kStages] = {1.0 / 3, 15.0 / 16, 8.0 / 15};

// The rates that bound a stable step, each a global maximum over the grid (1 / time):
// advective = max sum_a (|u_a| + c_fast) / dx_a (c_fast the fast magnetosonic speed),
// diffusive = max (largest diffusivity) * sum_a 1 / dx_a^2.
struct Limits {
  real advective = 0;
  real diffusive = 0;
};

// What a model offers the integrator.
class Problem {
 public:
  virtual ~Problem() = default;
  // One stage: w = alpha w + dt F(f), f = f + beta w (halos of f filled on return). Stages come
  // in the order 0, 1, 2: w need not survive the last one (the first has alpha = 0).
  virtual void stage(int index, real alpha, real beta, real dt) = 0;
  // Identical on all ranks.
  virtual Limits limits() = 0;
};

struct Options {
  enum class Step { cfl, fixed } step = Step::cfl;
  real cdt = 0.4;               // advective safety factor (Pencil Code default)
  real cdtv = 0.25;             // diffusive safety factor (Pencil Code default)
  bool allow_unstable = false;  // a fixed step above the stable one is refused unless this is set

  static void add_to(io::Schema& s);
  static Options from(const io::json& resolved);
};

// The largest stable step the limits allow (infinite when nothing limits it).
real stable_dt(const Options& o, const Limits& l);

// Advances `p` by `dt`: one RK3 step when the step is fixed; with cfl, the fewest equal steps that
// each respect stable_dt (limits evaluated once, at the start). Returns the number of RK3 steps.
int advance(Problem& p, const Options& o, real dt);

// Before the first step: throws ConfigError naming time.dt when a fixed step `dt` exceeds the
// stable step of the current state (unless allow_unstable): such a run only produces NaN.
void check_fixed_step(Problem& p, const Options& o, real dt);

// One full RK3 step of size dt.
void step(Problem& p, real dt);

}  // namespace staghorn::rk3
