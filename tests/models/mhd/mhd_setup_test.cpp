// What the model lets a user choose, each checked against an independent computation: the order of
// the central differences (a sound wave runs at the frequency of that order's modified
// wavenumber), the Gaussian-blob initial condition (periodic images included) and the helicity of
// the Pencil-style forcing (curl f = sigma |k| f, so a flow forced from rest has relative kinetic
// helicity <u . curl u> / <u^2> of sign sigma and size |k|); and that the RK3 registers need not be
// read in the first stage.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

#include "core/derivatives.hpp"
#include "mhd_fixture.hpp"
#include "test_support.hpp"

namespace staghorn::test {
namespace {

using cplx = std::complex<double>;
constexpr double kTwoPi = 2 * M_PI;

#if defined(STAGHORN_SINGLE_PRECISION)
// Float state: a 1e-6 wave keeps ~7 digits, enough to tell order 2 from 4 (their frequencies
// differ by 2.5%), not 6 from 8 (3e-5); the looser bound says so.
constexpr double kFrequencyTolerance = 3e-4;
constexpr double kFieldTolerance = 1e-6;
#else
constexpr double kFrequencyTolerance = 1e-6;
constexpr double kFieldTolerance = 1e-14;
#endif

// k_mod dx = 2 sum_m c_m sin(m k dx): what a central first difference of this order makes of k.
template <int Order>
double modified_wavenumber(double k, double dx) {
  double sum = 0;
  for (int m = 1; m <= Order / 2; ++m) sum += fd::first_weight<Order>(m) * std::sin(m * k * dx);
  return 2 * sum / dx;
}

// An inviscid isothermal sound wave on 16 cells: the semi-discrete system's eigenvalue is
// i cs k_mod(order). Fixed steps short enough that RK3's phase error (~(omega dt)^4 / 24 ~ 1e-10)
// is far below the differences between orders.
template <int Order>
void sound_wave_at_order() {
  const int n = 16, steps = 400;
  const double t = 0.4, cs = 1, k = kTwoPi, dx = 1.0 / n;
  io::json c = {{"grid", {{"n", {n, 1, 1}}, {"periodic", {true, true, true}}}},
                {"time", {{"dt", t / steps}, {"steps", steps}}},
                {"rk3", {{"timestep", "fixed"}}},
                {"mhd",
                 {{"order", Order},
                  {"isothermal", true},
                  {"nu", 0.0},
                  {"eta", 0.0},
                  {"initial", {{"type", "noise"}, {"amplitude", 0.0}}}}}};
  MhdRun r(c);
  const double U = 1e-6;  // u = U e^{ikx}, ln rho = -U / cs e^{ikx}: the mode s = +i cs k_mod
  r.set(mhd::kUx, [&](double x, double, double) { return U * std::cos(k * x); });
  r.set(mhd::kLnrho, [&](double x, double, double) { return -U / cs * std::cos(k * x); });
  r.model->refresh();
  const cplx p0 = r.mode(mhd::kUx, k);
  r.run();
  const double measured = (std::log(r.mode(mhd::kUx, k) / p0) / t).imag();
  const double expected = cs * modified_wavenumber<Order>(k, dx);
  std::printf("order %d: frequency %.9f, semi-discrete %.9f, exact %.9f\n", Order, measured,
              expected, cs * k);
  EXPECT_NEAR(measured, expected, kFrequencyTolerance * expected) << "order " << Order;
}

TEST(MhdSetup, Order2SoundWaveRunsAtItsModifiedWavenumber) { sound_wave_at_order<2>(); }
TEST(MhdSetup, Order4SoundWaveRunsAtItsModifiedWavenumber) { sound_wave_at_order<4>(); }
TEST(MhdSetup, Order6SoundWaveRunsAtItsModifiedWavenumber) { sound_wave_at_order<6>(); }
TEST(MhdSetup, Order8SoundWaveRunsAtItsModifiedWavenumber) { sound_wave_at_order<8>(); }

TEST(MhdSetup, OddOrderIsRejectedNamingTheKey) {
  io::json c = {{"grid", {{"n", {16, 1, 1}}, {"periodic", {true, true, true}}}},
                {"mhd", {{"order", 5}}}};
  try {
    MhdRun r(c);
    FAIL() << "expected an error";
  } catch (const io::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("mhd.order"), std::string::npos) << e.what();
  }
}

// Blob centred near a corner, so that it wraps around every periodic axis: ln rho and A_z are
// exp(-r^2 / (2 sigma^2)) of the nearest image, everything else is zero.
TEST(MhdSetup, GaussianBlobsWrapAroundThePeriodicBox) {
  const int n = 12;
  const double amp = 0.3, famp = 0.2, sigma = 0.15, centre = 0.05;
  io::json c = {{"grid", {{"n", {n, n, n}}, {"periodic", {true, true, true}}}},
                {"mhd",
                 {{"lnrho0", 0.5},
                  {"initial",
                   {{"type", "gaussian_blobs"},
                    {"amplitude", amp},
                    {"field_amplitude", famp},
                    {"sigma", sigma},
                    {"center", {centre, centre, centre}}}}}}};
  MhdRun r(c);
  auto blob = [&](double x, double y, double z) {
    double r2 = 0;
    for (double d : {x - centre, y - centre, z - centre}) {
      const double image = d > 0.5 ? d - 1 : d;  // the nearest periodic image in a unit box
      r2 += image * image;
    }
    return std::exp(-r2 / (2 * sigma * sigma));
  };
  double worst_lnrho = 0, worst_az = 0, others = 0;
  for (int v = 0; v < r.model->vars(); ++v) {
    const Field& f = r.model->var(v);
    const std::vector<real> h = f.to_host();
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          const double value = h[f.layout().index(i, j, k)];
          const double b = blob(r.x(0, i), r.x(1, j), r.x(2, k));
          if (v == mhd::kLnrho)
            worst_lnrho = std::max(worst_lnrho, std::fabs(value - (0.5 + amp * b)));
          else if (v == mhd::kAz)
            worst_az = std::max(worst_az, std::fabs(value - famp * b));
          else
            others = std::max(others, std::fabs(value));
        }
  }
  EXPECT_LT(worst_lnrho, kFieldTolerance);
  EXPECT_LT(worst_az, kFieldTolerance);
  EXPECT_EQ(others, 0);
}

// <u . curl u> / <u^2> after forcing from rest, curl by the 6th-order differences.
double relative_helicity(MhdRun& r) {
  const Field& fx = r.model->var(mhd::kUx);
  const std::vector<real> ux = fx.to_host(), uy = r.model->var(mhd::kUy).to_host(),
                          uz = r.model->var(mhd::kUz).to_host();
  const View v = fx.view();
  const std::ptrdiff_t s[3] = {1, v.sy, v.sz};
  const double r1 = 1 / r.settings.grid.spacing(0);  // a cubic box
  auto d = [&](const std::vector<real>& f, std::ptrdiff_t o, int a) {
    return fd::d1<6>(f.data() + o, s[a]) * r1;
  };
  const Int3 n = fx.layout().n;
  double H = 0, E = 0;
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j)
      for (int i = 0; i < n.x; ++i) {
        const std::ptrdiff_t o = fx.layout().index(i, j, k);
        const double wx = d(uz, o, 1) - d(uy, o, 2), wy = d(ux, o, 2) - d(uz, o, 0),
                     wz = d(uy, o, 0) - d(ux, o, 1);
        H += ux[o] * wx + uy[o] * wy + uz[o] * wz;
        E += ux[o] * ux[o] + uy[o] * uy[o] + uz[o] * uz[o];
      }
  return H / E;
}

double forced_helicity(double sigma) {
  io::json c = {{"grid",
                 {{"n", {16, 16, 16}},
                  {"length", {kTwoPi, kTwoPi, kTwoPi}},
                  {"periodic", {true, true, true}}}},
                {"time", {{"dt", 0.05}, {"steps", 4}}},
                {"mhd",
                 {{"isothermal", true},
                  {"nu", 0.01},
                  {"eta", 0.01},
                  {"forcing", {{"amplitude", 0.02}, {"k", 2.0}, {"helicity", sigma}}},
                  {"initial", {{"type", "noise"}, {"amplitude", 0.0}}}}}};
  MhdRun r(c);
  r.run();
  const double h = relative_helicity(r);
  std::printf("helicity %g: <u . curl u> / <u^2> = %.4f\n", sigma, h);
  return h;
}

// Forcing wavevectors have 1.5 <= |k| < 2.5 (here |k| in {sqrt 3, 2, sqrt 5}). One non-helical
// mode has u . curl u = 0 at every point, but two draws of one wavevector (38 in the shell, one
// per RK3 step) do not: sigma = 0 only gives far less helicity than sigma = +-1.
TEST(MhdSetup, HelicalForcingDrivesHelicityOfItsSign) {
  const double plus = forced_helicity(1), minus = forced_helicity(-1), none = forced_helicity(0);
  EXPECT_GT(plus, 1.6);
  EXPECT_LT(plus, 2.3);
  EXPECT_LT(minus, -1.6);
  EXPECT_GT(minus, -2.3);
  EXPECT_LT(std::fabs(none), 0.25 * plus);
}

// The first RK3 stage (alpha = 0) does not read the RK registers w and the last does not need to
// write them: a step from w full of NaN gives the same bits as one from w = 0, and so does the
// step after it (which starts from whatever the last stage left in w).
std::vector<std::vector<real>> two_steps(bool poison_w) {
  MhdRun r({{"grid", {{"n", {12, 12, 12}}, {"periodic", {true, true, true}}}},
            {"time", {{"dt", 1e-3}, {"steps", 2}}},
            {"mhd",
             {{"initial", {{"type", "noise"}, {"amplitude", 0.05}, {"field_amplitude", 0.05}}}}}});
  for (int v = 0; v < r.model->vars(); ++v) {
    Field& w = r.model->rk_register(v);
    w.from_host(std::vector<real>(w.layout().count(), poison_w ? real(NAN) : real(0)));
  }
  r.run();
  std::vector<std::vector<real>> f;
  for (int v = 0; v < r.model->vars(); ++v) f.push_back(interior_values(r.model->var(v)));
  return f;
}

TEST(MhdSetup, RkRegistersEnterOnlyAfterTheFirstStage) {
  const auto clean = two_steps(false), poisoned = two_steps(true);
  for (std::size_t v = 0; v < clean.size(); ++v)
    for (std::size_t c = 0; c < clean[v].size(); ++c) {
      ASSERT_TRUE(std::isfinite(poisoned[v][c])) << "variable " << v << " cell " << c;
      ASSERT_EQ(clean[v][c], poisoned[v][c]) << "variable " << v << " cell " << c;
    }
}

}  // namespace
}  // namespace staghorn::test
