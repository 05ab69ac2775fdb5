// Free decay: an ABC (Beltrami) flow decays viscously at exp(-2 nu k^2 t) in kinetic energy, and
// a fully compressible MHD run with entropy, conduction and a magnetic field loses kinetic plus
// magnetic energy at every step.
#include <gtest/gtest.h>

#include <cmath>

#include "mhd_fixture.hpp"

namespace staghorn::test {
namespace {

constexpr double kTwoPi = 2 * M_PI;

double diagnostic(MhdRun& r, const std::string& name) {
  for (const auto& d : r.model->diagnostics())
    if (d.first == name) return d.second;
  ADD_FAILURE() << "no diagnostic " << name;
  return 0;
}

io::json box(int n, double dt, int steps) {
  return {
      {"grid",
       {{"n", {n, n, n}}, {"length", {kTwoPi, kTwoPi, kTwoPi}}, {"periodic", {true, true, true}}}},
      {"time", {{"dt", dt}, {"steps", steps}}}};
}

// u . grad u = grad(u^2 / 2) for a Beltrami flow: at low Mach number only viscosity acts.
TEST(MhdDecay, AbcFlowDecaysAtTheViscousRate) {
  const double nu = 0.05, t = 2.0;
  io::json c = box(16, t / 4, 4);
  c["mhd"] = {{"isothermal", true},
              {"nu", nu},
              {"eta", 0.0},
              {"initial", {{"type", "abc_flow"}, {"amplitude", 0.02}, {"wavenumber", {1, 0, 0}}}}};
  MhdRun r(c);
  const double e0 = diagnostic(r, "kinetic_energy");
  r.run();
  const double ratio = diagnostic(r, "kinetic_energy") / e0, expected = std::exp(-2 * nu * t);
  EXPECT_NEAR(ratio, expected, 2e-3 * expected);
}

TEST(MhdDecay, CompressibleMhdLosesEnergyEveryStep) {
  io::json c = box(16, 0.1, 1);
  c["mhd"] = {{"nu", 0.02},
              {"eta", 0.02},
              {"K", 0.001},
              {"initial",
               {{"type", "abc_flow"},
                {"amplitude", 0.2},
                {"field_amplitude", 0.05},
                {"wavenumber", {2, 0, 0}}}}};
  MhdRun r(c);
  auto energy = [&] { return diagnostic(r, "kinetic_energy") + diagnostic(r, "magnetic_energy"); };
  const double e0 = energy();
  ASSERT_GT(diagnostic(r, "magnetic_energy"), 0);
  double last = e0;
  for (int step = 0; step < 5; ++step) {
    r.model->advance(0.1);
    const double e = energy();
    EXPECT_LT(e, last) << "step " << step;
    last = e;
  }
  EXPECT_LT(last, 0.9 * e0);
}

}  // namespace
}  // namespace staghorn::test
