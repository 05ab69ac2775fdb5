// The damping control of the Stokes PT iterations (models/staggered_stokes/damping.hpp) on a synthetic
// residual history: a decaying oscillation whose damping ratio depends on Re with a known best.
#include "models/staggered_stokes/damping.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace staghorn::test {
namespace {

using stokes::DampingControl;

// The slowest mode's damping ratio as a function of Re: largest (0.7) at `best`, falling off on
// either side in log Re, as the measured one does (docs/models/stokes.md).
double damping_ratio(double re, double best) {
  const double x = std::log(re / best) / 0.5;
  return 0.7 * std::exp(-0.5 * x * x);
}

// Runs `iterations` iterations of a mode with half-period `half_period`, checked every `ncheck`,
// two equations with their oscillations out of phase; returns the control's final Re.
double tuned_re(double re0, double best, long long iterations) {
  const double half_period = 600, omega = M_PI / half_period;
  const int ncheck = 25;
  DampingControl control(re0, 255);
  double log_amplitude = std::log(1e6), phase = 0;
  for (long long it = 0; it <= iterations; it += ncheck) {
    control.observe(it, {std::exp(log_amplitude) * std::fmax(std::fabs(std::cos(phase)), 1e-3),
                         std::exp(log_amplitude) * std::fmax(std::fabs(std::sin(phase)), 1e-3)});
    const double zeta = damping_ratio(control.Re(), best);
    // sigma = zeta w_n, oscillation at w = w_n sqrt(1 - zeta^2): per iteration at this Re.
    const double wn = omega / std::sqrt(1 - zeta * zeta);
    log_amplitude -= zeta * wn * ncheck;
    phase += omega * ncheck;
  }
  return control.Re();
}

// The control, run on a history by `tune` whose best Re is `factor` times the start, ends within
// 15% of that best.
void expect_finds_best(double (*tune)(double, double, long long), double factor,
                       long long iterations) {
  const double re0 = 12.24, best = factor * re0;
  const double re = tune(re0, best, iterations);
  ::testing::Test::RecordProperty("Re_over_best", std::to_string(re / best));
  EXPECT_NEAR(re / best, 1, 0.15);
}

TEST(DampingControl, FindsTheBestDampingBelowTheStart) {
  expect_finds_best(tuned_re, 0.6, 40 * 600);
}

TEST(DampingControl, FindsTheBestDampingAboveTheStart) {
  expect_finds_best(tuned_re, 1.5, 40 * 600);
}

TEST(DampingControl, StaysAtTheStartWhenItIsBest) { expect_finds_best(tuned_re, 1, 40 * 600); }

// An overdamped slowest mode: the residual falls without swings, at a rate per iteration that
// depends on Re with a known best (largest at `best`), after a faster first phase (a second mode
// 10^4 times larger decaying 10 times faster) whose decelerating fall must not count as a rate.
// Returns the control's final Re.
double tuned_re_monotone(double re0, double best, long long iterations) {
  const int n = 255, ncheck = 25;
  DampingControl control(re0, n);
  double log_slow = std::log(1e2), log_fast = std::log(1e6);
  for (long long it = 0; it <= iterations; it += ncheck) {
    const double r = std::exp(log_slow) + std::exp(log_fast);
    control.observe(it, {r, 0.5 * r});
    const double x = std::log(control.Re() / best) / 0.5;
    const double rate = std::exp(-0.5 * x * x) / (4.0 * n);
    log_slow -= rate * ncheck;
    log_fast -= 10 * rate * ncheck;
  }
  return control.Re();
}

TEST(DampingControl, FindsTheBestDampingOfAMonotoneDecayBelowTheStart) {
  expect_finds_best(tuned_re_monotone, 0.5, 40 * 255);
}

TEST(DampingControl, FindsTheBestDampingOfAMonotoneDecayAboveTheStart) {
  expect_finds_best(tuned_re_monotone, 1.6, 40 * 255);
}

TEST(DampingControl, LeavesAMonotoneDecayAtItsBestStart) {
  expect_finds_best(tuned_re_monotone, 1, 40 * 255);
}

// Checks at the same iteration (a model's diagnostics) and residuals that are 0 or not finite
// change nothing.
TEST(DampingControl, IgnoresRepeatedAndEmptyChecks) {
  DampingControl control(10, 255);
  for (int it = 0; it < 5000; it += 25) {
    control.observe(it, {0.0, NAN});
    control.observe(it, {0.0, NAN});
  }
  EXPECT_EQ(control.Re(), 10);
  EXPECT_FALSE(control.last_damping_ratio());
}

}  // namespace
}  // namespace staghorn::test
