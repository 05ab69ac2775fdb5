// The PT solver's control logic on a scalar model problem: convergence checks, divergence and NaN
// handling, retries with a halved pseudo-step, max_iter.
#include "solvers/pt_solver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "precision.hpp"
#include "solvers/pt_update.hpp"

namespace staghorn::pt {
namespace {

// Solves lambda (x - 1) = 0 by the damped update; stable only while scale * factor stays below
// `stable_below` (standing in for a nonlinear problem that needs a smaller pseudo-step).
class Scalar : public Problem {
 public:
  Scalar(real stable_below, bool nan = false) : stable_below_(stable_below), nan_(nan) {}
  void begin_solve(real) override { x_ = x_old_ = 0, v_ = 0; }
  void iterate(int count) override {
    // Beyond 4 - 2d the damped update blows up.
    const real step = scale_ < stable_below_ ? 0.5 * scale_ : 10.0;
    iterated_ += count;
    for (int i = 0; i < count; ++i) {
      const real R = -(x_ - 1);
      v_ = R + 0.5 * v_;
      x_ += step * v_;
    }
  }
  std::vector<Residual> residuals() override {
    return {{"x", nan_ ? std::nan("") : std::fabs(x_ - 1) * norm_scale_, norm_scale_}};
  }
  void retry(real factor) override { x_ = x_old_, v_ = 0, scale_ *= factor, ++retries_; }
  int retries_ = 0;
  long long iterated_ = 0;
  double norm_scale_ = 1;  // what the raw norm is multiplied by (a stress scale's inverse, say)

 private:
  real stable_below_;
  bool nan_;
  real x_ = 0, x_old_ = 0, v_ = 0, scale_ = 1;
};

Options options() {
  Options o;
  o.tol = test::kSinglePrecision ? 1e-5 : 1e-10;  // float residuals stall near 1e-7
  o.ncheck = 10;
  o.max_iter = 10000;
  return o;
}

TEST(PtSolver, ConvergesToTolerance) {
  Scalar p(10);
  const SolveReport r = Solver(options()).solve(p, 1);
  EXPECT_LE(r.residuals[0].norm, options().tol);
  EXPECT_EQ(r.retries, 0);
  EXPECT_GT(r.iterations, 0);
  EXPECT_EQ(r.iterations % 10, 0);  // checked every ncheck iterations
}

// Two residuals decaying together, the second starting at the rounding level (as the continuity
// of a divergence-free initial flow does) and rising first: with an absolute tolerance that rise
// is no divergence (it counts from the tolerance, not from the tiny start).
class RisingFromRounding : public Problem {
 public:
  void begin_solve(real) override { it_ = 0; }
  void iterate(int count) override { it_ += count; }
  std::vector<Residual> residuals() override {
    const double decay = std::exp(-it_ / 10.0);
    return {{"a", decay}, {"b", it_ == 0 ? 1e-15 : 1e-3 * decay}};
  }
  void retry(real) override { ++retries_; }
  int retries_ = 0;

 private:
  long long it_ = 0;
};

TEST(PtSolver, ResidualRisingFromRoundingIsNoDivergence) {
  RisingFromRounding p;
  Options o = options();
  o.relative = false;
  o.tol = 1e-6;
  const SolveReport r = Solver(o).solve(p, 1);
  EXPECT_EQ(r.retries, 0);
  EXPECT_LE(r.residuals[1].norm, o.tol);
}

// The scale of the first check is 1e-5 of the later ones (a range that was still 0, say): the
// residual falls from its start, which is no divergence, although its scaled norm grows 5e4-fold
// in the first iteration (more than the 10-fold this test allows).
class ScaleSettlesAfterTheStart : public Scalar {
 public:
  ScaleSettlesAfterTheStart() : Scalar(10) { norm_scale_ = 0.1; }
  std::vector<Residual> residuals() override {
    std::vector<Residual> r = Scalar::residuals();
    norm_scale_ = 1e4;
    return r;
  }
};

TEST(PtSolver, AScaleThatGrowsAfterTheStartIsNoDivergence) {
  ScaleSettlesAfterTheStart p;
  Options o = options();
  o.relative = false;
  o.tol = 1e-2;  // the raw residual 1e-6
  o.ncheck = 1;
  o.divergence = 10;
  const SolveReport r = Solver(o).solve(p, 1);
  EXPECT_EQ(r.retries, 0);
  EXPECT_LE(r.residuals[0].norm, o.tol);
}

TEST(PtSolver, RetriesWithSmallerStepAfterDivergence) {
  Scalar p(0.3);  // needs two halvings: 1 -> 0.5 -> 0.25
  const SolveReport r = Solver(options()).solve(p, 1);
  EXPECT_EQ(r.retries, 2);
  EXPECT_EQ(p.retries_, 2);
  EXPECT_LE(r.residuals[0].norm, options().tol);
}

TEST(PtSolver, GivesUpAfterTheAllowedRetries) {
  Scalar p(0.01);
  Options o = options();
  o.retries = 2;
  try {
    Solver(o).solve(p, 1);
    FAIL() << "no error";
  } catch (const NumericalError& e) {
    EXPECT_NE(std::string(e.what()).find("halved 2 times"), std::string::npos) << e.what();
  }
}

TEST(PtSolver, NanIsAnError) {
  Scalar p(10, /*nan=*/true);
  Options o = options();
  o.retries = 0;
  EXPECT_THROW(Solver(o).solve(p, 1), NumericalError);
}

// The watch sees every check that does not end the solve: iterations in steps of ncheck, and the
// residuals with their start norms, the largest falling.
TEST(PtSolver, TheWatchSeesEveryCheckBeforeTheLast) {
  Options o = options();
  o.relative = false;
  Solver solver(o);
  std::vector<long long> seen;
  std::vector<double> residuals;
  solver.watch([&](long long it, const std::vector<Residual>& r) {
    seen.push_back(it);
    residuals.push_back(std::max(r[0].norm, r[1].norm));
    EXPECT_DOUBLE_EQ(r[0].start, 1.0);  // with its start norm
  });
  RisingFromRounding p;  // e^(-it / 10)
  const SolveReport r = solver.solve(p, 1);
  ASSERT_GT(seen.size(), 10u);
  ASSERT_EQ(seen.size() * o.ncheck, static_cast<std::size_t>(r.iterations));
  for (std::size_t n = 0; n < seen.size(); ++n)
    EXPECT_EQ(seen[n], static_cast<long long>(n) * o.ncheck);
  EXPECT_DOUBLE_EQ(residuals.front(), 1.0);
  EXPECT_DOUBLE_EQ(residuals[1], std::exp(-1.0));
  EXPECT_LT(residuals.back(), residuals.front());
  EXPECT_GT(residuals.back(), o.tol);
}

TEST(PtSolver, MaxIterIsAnError) {
  Scalar p(10);
  Options o = options();
  o.max_iter = 20;
  o.tol = -1;  // unreachable
  o.relative = false;
  EXPECT_THROW(Solver(o).solve(p, 1), NumericalError);
}

// A residual that swings without falling (a nonlinear cycle, standing in for the coupled
// hydro-mechanics' viscosity chasing its pressures) until the pseudo-step is halved.
class Cycling : public Problem {
 public:
  void begin_solve(real) override { it_ = 0; }
  void iterate(int count) override { it_ += count; }
  std::vector<Residual> residuals() override {
    const double swing = 1 + 0.5 * std::sin(0.01 * it_);
    return {{"x", scale_ < 1 ? std::exp(-0.01 * it_) : swing, 1}};
  }
  void retry(real factor) override { it_ = 0, scale_ *= factor, ++retries_; }
  int retries_ = 0;

 private:
  long long it_ = 0;
  real scale_ = 1;
};

TEST(PtSolver, AStalledSolveRestartsWithAHalvedPseudoStep) {
  Options o = options();
  o.stall = 1000;
  Cycling p;
  const SolveReport r = Solver(o).solve(p, 1);
  EXPECT_EQ(r.retries, 1);
  EXPECT_EQ(p.retries_, 1);
  EXPECT_LE(r.residuals[0].norm, o.tol);
  // the stall is seen after `stall` iterations without halving, not before
  EXPECT_GE(r.iterations, o.stall);
  EXPECT_LT(r.iterations, o.stall + 3000);
}

// The NumericalError a solve ends with ("no error" where it converges).
std::string error_of(const Options& o, Problem& p) {
  try {
    Solver(o).solve(p, 1);
  } catch (const NumericalError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PtSolver, WithoutAStallWatchACycleRunsToMaxIter) {
  Options o = options();
  o.max_iter = 5000;
  Cycling p;
  const std::string error = error_of(o, p);
  EXPECT_NE(error.find("not converged after 5000"), std::string::npos) << error;
  EXPECT_EQ(p.retries_, 0);
}

TEST(PtSolver, AStallThatRetriesDoNotCureIsAnErrorNamingIt) {
  Options o = options();
  o.stall = 500;
  o.retries = 0;
  Cycling p;
  const std::string error = error_of(o, p);
  EXPECT_NE(error.find("stalled"), std::string::npos) << error;
}

// max_iter is exact even where it is not a multiple of ncheck (or is below it).
TEST(PtSolver, MaxIterIsHonouredExactly) {
  for (const long long max_iter : {1LL, 7LL, 23LL}) {
    Scalar p(10);
    Options o = options();
    o.max_iter = max_iter;
    o.tol = -1;
    o.relative = false;
    const std::string error = error_of(o, p);
    EXPECT_NE(error.find("not converged after " + std::to_string(max_iter) + " iterations"),
              std::string::npos)
        << error;
    EXPECT_EQ(p.iterated_, max_iter);
  }
}

// A scale that overflowed (its inverse 0) would make every residual 0: never convergence.
TEST(PtSolver, AScaleThatIsNotFiniteAndPositiveIsAnError) {
  for (const double scale : {0.0, HUGE_VAL, std::nan("")}) {
    Scalar p(10);
    p.norm_scale_ = scale;
    try {
      Solver(options()).solve(p, 1);
      FAIL() << "no error for scale " << scale;
    } catch (const NumericalError& e) {
      EXPECT_NE(std::string(e.what()).find("the scale of the x residual is"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(p.iterated_, 0);
  }
}

}  // namespace
}  // namespace staghorn::pt
