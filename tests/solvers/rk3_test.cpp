// The Williamson 2N RK3 integrator: third-order convergence on a nonlinear ODE, and the CFL split
// of a time step into equal stable steps.
#include "solvers/rk3.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "precision.hpp"

namespace staghorn {
namespace {

// The logistic equation y' = y (1 - y), y(0) = 0.1, held as 2N storage (f, w).
struct Logistic : rk3::Problem {
  real y = 0.1, w = 0;
  rk3::Limits lim;
  int stages = 0;
  void stage(int, real alpha, real beta, real dt) override {
    w = alpha * w + dt * y * (1 - y);
    y += beta * w;
    ++stages;
  }
  rk3::Limits limits() override { return lim; }
  static real exact(real t) { return 1 / (1 + 9 * std::exp(-t)); }
};

double error_with(int steps) {
  Logistic p;
  const real t = 2.0;
  for (int s = 0; s < steps; ++s) rk3::step(p, t / steps);
  return std::fabs(p.y - Logistic::exact(t));
}

TEST(Rk3, ThirdOrderOnTheLogisticEquation) {
  // Float rounds the state and the coefficients near 1e-7: the errors of 40-80 steps are there.
  if (test::kSinglePrecision) GTEST_SKIP() << "float round-off hides the truncation error";
  for (int n : {10, 20, 40}) {
    const double order = std::log2(error_with(n) / error_with(2 * n));
    EXPECT_NEAR(order, 3.0, 0.1) << n << " -> " << 2 * n << " steps";
  }
}

TEST(Rk3, CoefficientsAreConsistent) {
  // A constant rate F = 1 must advance y by exactly dt: sum of the stage contributions is 1.
  Logistic p;
  real w = 0, y = 0;
  for (int s = 0; s < rk3::kStages; ++s) w = rk3::kAlpha[s] * w + 1, y += rk3::kBeta[s] * w;
  EXPECT_NEAR(y, 1.0, test::roundoff(1e-15));
}

TEST(Rk3, CflSplitsIntoEqualStableSteps) {
  Logistic p;
  p.lim = {10.0, 0.0};  // stable dt = cdt / 10 = 0.04
  rk3::Options o;
  EXPECT_EQ(rk3::advance(p, o, 0.1), 3);  // 0.1 / 0.04 = 2.5 -> 3 steps
  EXPECT_EQ(p.stages, 9);
  p.lim = {0.0, 1.0};  // diffusive: cdtv / 1 = 0.25
  EXPECT_EQ(rk3::advance(p, o, 0.5), 2);
  o.step = rk3::Options::Step::fixed;
  EXPECT_EQ(rk3::advance(p, o, 100.0), 1);
}

// A fixed step above the stable one only makes NaN: refused (naming time.dt) unless insisted on.
TEST(Rk3, AnUnstableFixedStepIsRefusedUnlessAllowed) {
  Logistic p;
  p.lim = {10.0, 0.0};  // stable dt = 0.04
  rk3::Options o;
  o.step = rk3::Options::Step::fixed;
  EXPECT_NO_THROW(rk3::check_fixed_step(p, o, 0.04));
  try {
    rk3::check_fixed_step(p, o, 0.5);
    FAIL() << "no error";
  } catch (const io::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("time.dt: 0.5 is above the stable RK3 step 0.04", 0), 0u)
        << e.what();
  }
  o.allow_unstable = true;
  EXPECT_NO_THROW(rk3::check_fixed_step(p, o, 0.5));
  o.allow_unstable = false;
  o.step = rk3::Options::Step::cfl;  // splits the step itself
  EXPECT_NO_THROW(rk3::check_fixed_step(p, o, 0.5));
  EXPECT_EQ(p.stages, 0);  // checking takes no step
}

TEST(Rk3, NonFiniteLimitsAreAnError) {
  Logistic p;
  p.lim = {std::nan(""), 0.0};
  EXPECT_THROW(rk3::advance(p, rk3::Options{}, 0.1), NumericalError);
}

}  // namespace
}  // namespace staghorn
