// Verification of the diffusion model: analytical solutions, convergence order, PT iteration
// scaling, conservation.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <random>
#include <vector>

#include "diffusion_fixture.hpp"
#include "models/diffusion/kernels.hpp"

namespace staghorn::test {
namespace {

// A unit Gaussian of width sigma0 diffusing (D = 1) until its variance has doubled, on a periodic
// unit box in `dims` dimensions, centred at c.
struct Gaussian {
  int dims = 2;
  double sigma0 = 0.1;
  double c[3] = {0.5, 0.5, 0.5};
  double t_end() const { return sigma0 * sigma0 / 2; }

  io::json config(int n, int steps) const {
    return {
        {"grid", {{"n", {n, n, dims == 3 ? n : 1}}, {"periodic", {true, true, true}}}},
        {"time", {{"dt", t_end() / steps}, {"steps", steps}}},
        {"solver", {{"tol", 1e-11}, {"ncheck", 20}}},
        {"diffusion",
         {{"initial", {{"type", "gaussian"}, {"sigma", sigma0}, {"center", {c[0], c[1], c[2]}}}}}}};
  }
  // Exact solution at t_end, summed over the nearest periodic images.
  double exact(const double x[3]) const {
    const double s2 = 2 * sigma0 * sigma0;
    double v = std::pow(sigma0 * sigma0 / s2, dims / 2.0);
    for (int a = 0; a < dims; ++a) {
      double sum = 0;
      for (int image = -2; image <= 2; ++image) {
        const double d = x[a] - c[a] + image;
        sum += std::exp(-d * d / (2 * s2));
      }
      v *= sum;
    }
    return v;
  }
  double max_error(const DiffusionRun& r) const {
    const std::vector<real> H = r.interior();
    const Int3 n = r.dec->local_cells();
    double err = 0;
    for (int k = 0; k < n.z; ++k)
      for (int j = 0; j < n.y; ++j)
        for (int i = 0; i < n.x; ++i) {
          const double x[3] = {r.x(0, i), r.x(1, j), r.x(2, k)};
          err = std::max(err, std::fabs(H[i + n.x * (j + n.y * k)] - exact(x)));
        }
    return err;
  }
  // Errors on n0, 2 n0, 4 n0 ... cells with dt ~ dx^2 (backward Euler: the whole error is O(dx^2)).
  std::vector<double> errors(int n0, int steps0, int levels) const {
    std::vector<double> e;
    for (int l = 0; l < levels; ++l) {
      DiffusionRun r(config(n0 << l, steps0 << (2 * l)));
      r.run();
      e.push_back(max_error(r));
    }
    return e;
  }
};

void expect_second_order(const std::vector<double>& e) {
  for (std::size_t l = 1; l < e.size(); ++l) {
    const double order = std::log2(e[l - 1] / e[l]);
    EXPECT_GT(order, 1.9) << "between levels " << l - 1 << " and " << l;
    EXPECT_LT(order, 2.2) << "between levels " << l - 1 << " and " << l;
  }
}

TEST(Diffusion, LinearGaussianConvergesAtSecondOrder2D) {
  const std::vector<double> e = Gaussian{}.errors(32, 16, 3);
  RecordProperty("errors",
                 std::to_string(e[0]) + " " + std::to_string(e[1]) + " " + std::to_string(e[2]));
  EXPECT_LT(e.back(), 1e-3);
  expect_second_order(e);
}

TEST(Diffusion, LinearGaussianConvergesAtSecondOrder3D) {
  Gaussian g;
  g.dims = 3;
  g.sigma0 = 0.15;
  expect_second_order(g.errors(16, 16, 2));
}

// A Gaussian centred near a corner wraps around the periodic axes through the self-exchange: the
// error is the same as for the centred one.
TEST(Diffusion, PeriodicWrapMatchesCentred) {
  Gaussian centred, corner;
  corner.c[0] = 0.03, corner.c[1] = 0.96;
  DiffusionRun a(centred.config(64, 16)), b(corner.config(64, 16));
  a.run();
  b.run();
  EXPECT_NEAR(corner.max_error(b), centred.max_error(a), 0.05 * centred.max_error(a));
}

// Dirichlet values on x and zero flux on y: the steady state is linear, exact on the grid.
TEST(Diffusion, DirichletSteadyStateIsLinear) {
  io::json c = {{"grid", {{"n", {24, 16, 1}}}},
                {"time", {{"dt", 1e12}, {"steps", 1}}},
                {"solver", {{"tol", 1e-12}, {"ncheck", 10}}},
                {"diffusion",
                 {{"initial", {{"type", "uniform"}, {"background", 0.3}}},
                  {"boundary",
                   {{"x_lo", {{"type", "dirichlet"}, {"value", 2.0}}},
                    {"x_hi", {{"type", "dirichlet"}, {"value", -1.0}}},
                    {"y_lo", {{"type", "neumann"}}},
                    {"y_hi", {{"type", "neumann"}}}}}}}};
  DiffusionRun r(c);
  r.run();
  const std::vector<real> H = r.interior();
  for (int j = 0; j < 16; ++j)
    for (int i = 0; i < 24; ++i) EXPECT_NEAR(H[i + 24 * j], 2.0 - 3.0 * r.x(0, i), 1e-9);
}

// One implicit step with dt >> L^2/D is a Poisson problem: iterations must grow ~n, not n^2.
TEST(Diffusion, PtIterationsGrowLinearlyWithResolution) {
  std::vector<long long> iters;
  for (int n : {32, 64, 128}) {
    io::json c = {{"grid", {{"n", {n, n, 1}}}},
                  {"time", {{"dt", 1e12}, {"steps", 1}}},
                  {"solver", {{"tol", 1e-8}, {"ncheck", 1}}},
                  {"diffusion", {{"initial", {{"type", "gaussian"}, {"sigma", 0.1}}}}}};
    DiffusionRun r(c);
    iters.push_back(r.run());
  }
  RecordProperty("iterations_32_64_128", std::to_string(iters[0]) + " " + std::to_string(iters[1]) +
                                             " " + std::to_string(iters[2]));
  EXPECT_LE(iters[1], 2.2 * iters[0]);
  EXPECT_LE(iters[2], 2.2 * iters[1]);
  EXPECT_GE(iters[2], 1.5 * iters[0]);  // and not suspiciously flat (a solver doing nothing)
}

// n = 3 with periodic axes: converges, conserves mass to the solver tolerance, keeps a maximum
// principle.
TEST(Diffusion, NonlinearConservesMass) {
  const double dt = 2e-4, tol = 1e-10;
  io::json c = {
      {"grid", {{"n", {64, 64, 1}}, {"periodic", {true, true, false}}}},
      {"time", {{"dt", dt}, {"steps", 10}}},
      {"solver", {{"tol", tol}, {"tol_mode", "absolute"}, {"ncheck", 20}}},
      {"diffusion",
       {{"exponent", 3},
        {"initial", {{"type", "box"}, {"amplitude", 1.0}, {"background", 0.1}, {"sigma", 0.2}}}}}};
  DiffusionRun r(c);
  const double m0 = r.model->diagnostics()[0].second;
  r.run();
  const auto d = r.model->diagnostics();
  // sum(H - H_old) = dt * sum(R) per step, so |dm| <= steps * dt * tol * area.
  EXPECT_LE(std::fabs(d[0].second - m0), 10 * dt * tol * 1.0 + 1e-14);
  EXPECT_LT(d[1].second, 1.1 - 1e-3);  // H_max decays from 1.1
  EXPECT_GT(d[2].second, 0.1 - 1e-9);  // H_min stays above the background
}

// The kernels' residual (constants folded: D0 2^-n / dx^2 per axis) against the equation written
// out: R = -(H - H_old)/dt + sum_axes (D(H_e)(H_e - H_c) - D(H_w)(H_c - H_w)) / dx^2 with
// D(H_f) = D0 ((H_l + H_h)/2)^n, for a whole and a fractional exponent.
TEST(DiffusionKernels, ResidualIsTheFaceAveragedFluxDivergence) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.2, 2.0);
  const double spacing[3] = {0.1, 0.05, 0.2}, dt = 1e-3;
  for (const double n : {3.0, 2.5}) {
    const diffusion::Material m{1.7, n, n == 3.0 ? 3 : -1};
    const diffusion::Coefficients co = diffusion::coefficients_for(m, dt, spacing, 3, 1.0, 0.9f);
    for (int t = 0; t < 100; ++t) {
      const diffusion::Star h{u(rng), u(rng), u(rng), u(rng), u(rng), u(rng), u(rng)};
      const double H_old = u(rng);
      auto D = [&](double a, double b) { return m.D0 * std::pow(0.5 * (a + b), n); };
      const double lo[3] = {h.w, h.s, h.b}, hi[3] = {h.e, h.n, h.t};
      double div = 0;
      for (int a = 0; a < 3; ++a)
        div += (D(h.c, hi[a]) * (hi[a] - h.c) - D(lo[a], h.c) * (h.c - lo[a])) /
               (spacing[a] * spacing[a]);
      const double expected = -(h.c - H_old) / dt + div;
      EXPECT_NEAR((co.residual<3>(h, H_old)), expected, 1e-12 * (std::fabs(div) + h.c / dt))
          << "n = " << n;
    }
  }
}

// The pseudo-step's bounds are the star's extremes rounded to float, which is also the extreme of
// the values rounded (the pairs kernel's way): the three functions agree; a maximum beyond float's
// range keeps its double in the double bounds and is held at kSingleBoundLimit in the single ones.
TEST(DiffusionKernels, StepBoundsAreTheStarsExtremesRoundedToFloat) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 3.0);
  for (int t = 0; t < 1000; ++t) {
    const diffusion::Star h{u(rng), u(rng), u(rng), u(rng), u(rng), u(rng), u(rng)};
    const double v[7] = {h.c, h.w, h.e, h.s, h.n, h.b, h.t};
    float fmax_of_rounded = static_cast<float>(v[0]), fmin_of_rounded = fmax_of_rounded;
    for (double x : v) {
      fmax_of_rounded = std::max(fmax_of_rounded, static_cast<float>(x));
      fmin_of_rounded = std::min(fmin_of_rounded, static_cast<float>(x));
    }
    real hi, lo;
    float hi_s, lo_s, hi_f, lo_f;
    diffusion::star_bounds<3>(h, hi, lo);
    diffusion::star_bounds_single<3>(h, hi_s, lo_s);
    diffusion::star_bounds_of_floats<3>(h, hi_f, lo_f);
    EXPECT_EQ(hi, static_cast<double>(fmax_of_rounded));
    EXPECT_EQ(lo, static_cast<double>(fmin_of_rounded));
    EXPECT_EQ(hi_s, fmax_of_rounded);
    EXPECT_EQ(lo_s, fmin_of_rounded);
    EXPECT_EQ(hi_f, fmax_of_rounded);
    EXPECT_EQ(lo_f, fmin_of_rounded);
  }
  const diffusion::Star huge{1.0, 2.0, 1e40, 1.0, 1.0, -1e300, 1.0};
  real hi, lo;
  diffusion::star_bounds<3>(huge, hi, lo);
  EXPECT_EQ(hi, 1e40);
  float hi_s, lo_s, hi_f, lo_f;
  diffusion::star_bounds_single<3>(huge, hi_s, lo_s);
  diffusion::star_bounds_of_floats<3>(huge, hi_f, lo_f);
  EXPECT_EQ(hi_s, diffusion::kSingleBoundLimit);
  EXPECT_EQ(hi_f, diffusion::kSingleBoundLimit);
  EXPECT_EQ(lo_s, -diffusion::kSingleBoundLimit);
  EXPECT_EQ(lo_f, -diffusion::kSingleBoundLimit);
  diffusion::star_bounds<1>(huge, hi, lo);  // the inactive axes are never read
  EXPECT_EQ(hi, 1e40);
  EXPECT_EQ(lo, 1.0);
}

// The single-precision step arguments against the double ones: the same values to float's
// rounding (a few ulps of float) for whole exponents, the double's bits rounded for a linear
// material, and declined where the bound is beyond float's range, a reaches kFloatSafe or the
// exponent is fractional (the double arguments then).
TEST(DiffusionKernels, SinglePrecisionStepArgumentsAreTheDoubleOnesRounded) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> u(-0.5, 4.0);
  const double spacing[3] = {0.1, 0.05, 0.2};
  for (int n = 0; n <= 5; ++n) {
    const diffusion::Material m{1.3, double(n), n};
    const diffusion::Coefficients co = diffusion::coefficients_for(m, 1e-3, spacing, 3, 2.0, 0.9f);
    for (int t = 0; t < 500; ++t) {
      const float x = static_cast<float>(u(rng)), y = static_cast<float>(u(rng));
      const float hi = std::max(x, y), lo = std::min(x, y);
      float fa = -1, fb = -1;
      ASSERT_TRUE(co.single_arguments(hi, lo, fa, fb)) << "n = " << n;
      real a, b;
      co.step_arguments(hi, lo, a, b);
      if (n == 0) {
        EXPECT_EQ(fa, static_cast<float>(a));
        EXPECT_EQ(fb, static_cast<float>(b));
      }
      EXPECT_NEAR(fa, a, (1 + 4 * n) * 1e-7 * std::fabs(a) + 1e-300) << "n = " << n << " hi " << hi;
      EXPECT_NEAR(fb, b, (1 + 4 * n) * 1e-7 * std::fabs(b) + 1e-300) << "n = " << n << " hi " << hi;
      // The whole step of a star with these bounds: the single-precision path's, and the double
      // one's to float's rounding.
      const diffusion::Star star{hi, lo, hi, hi, hi, hi, hi};
      const pt::Step s = co.step<3>(star), d = co.double_step<3>(star);
      EXPECT_EQ(d.dtau, pt::optimal_step(a, b, co.dt, co.cfl).dtau);
      EXPECT_NEAR(s.dtau, d.dtau, 1e-5 * d.dtau);
      EXPECT_NEAR(s.damp, d.damp, 1e-5);
    }
    float fa, fb;
    if (n > 0) {
      EXPECT_FALSE(co.single_arguments(diffusion::kSingleBoundLimit, 1.0f, fa, fb)) << "the limit";
      EXPECT_FALSE(co.single_arguments(INFINITY, 1.0f, fa, fb)) << "beyond float";
      // A NaN bound: clamped to 0 as the double arguments clamp it, declined without the clamp.
      EXPECT_TRUE(co.single_arguments(NAN, 1.0f, fa, fb));
      EXPECT_FALSE((co.single_arguments<-1, false>(NAN, 1.0f, fa, fb))) << "NaN";
    }
    if (n > 1) {
      EXPECT_FALSE(co.single_arguments(1e20f, 1.0f, fa, fb)) << "a beyond kFloatSafe";
    }
    const diffusion::Coefficients stiff =
        diffusion::coefficients_for(m, 1e40, spacing, 3, 2.0, 0.9f);
    EXPECT_FALSE(stiff.single_arguments(1.0f, 1.0f, fa, fb)) << "ka beyond kFloatSafe";
  }
  const diffusion::Material fractional{1.0, 2.5, -1};
  const diffusion::Coefficients co =
      diffusion::coefficients_for(fractional, 1e-3, spacing, 3, 2.0, 0.9f);
  float fa, fb;
  EXPECT_FALSE(co.single_arguments(1.0f, 0.5f, fa, fb));
  const diffusion::Star star{1.0, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0};
  EXPECT_EQ(co.step<3>(star).dtau, co.double_step<3>(star).dtau) << "fractional: the double step";
}

}  // namespace
}  // namespace staghorn::test
