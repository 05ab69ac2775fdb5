// The CPU pencil kernel (mhd.kernel = tiled on the CPU, models/mhd/pencil.hpp) against the generic
// kernel, the reference: one whole RK3 step (the first stage reads no w, the last writes none) on a
// random state, for every order the model has (2-8), with entropy and isothermal, forcing on and
// off, kinematic, in 3-D, 2-D and 1-D, with the boundary shell computed apart (hidden exchange) and
// not. Periodic axes are the only boundaries the model supports. The grid is no multiple of the
// pencil's segment along x, so that full segments and a shorter last one both run.
// Criterion (as mhd_parity_test): the state after the step within 2 ulps of each field's range and
// the difference within 1e-14 of the step's largest increment. The pencil kernel evaluates every
// cell with the generic kernel's expressions in the same order, so in this build the difference
// is expected to be 0 (printed).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "agreement.hpp"
#include "mhd_fixture.hpp"
#include "solvers/rk3.hpp"
#include "test_support.hpp"

namespace staghorn::test {
namespace {

struct Case {
  int order;
  bool isothermal;
  double forcing;  // mhd.forcing.amplitude
  bool kinematic;
  std::vector<int> n;
  bool hide;
  std::string name() const {
    std::string s = "order " + std::to_string(order) + (isothermal ? " isothermal" : " entropy");
    s += forcing > 0 ? " forced" : "";
    s += kinematic ? " kinematic" : "";
    s += " " + std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]);
    return s + (hide ? " hidden" : "");
  }
};

io::json config(const Case& c, const std::string& kernel) {
  return {{"grid", {{"n", c.n}, {"length", {6.3, 5.1, 4.7}}, {"periodic", {true, true, true}}}},
          {"exchange", {{"hide_communication", c.hide}}},
          {"mhd",
           {{"kernel", kernel},
            {"order", c.order},
            {"isothermal", c.isothermal},
            {"kinematic", c.kinematic},
            {"K", 1e-3},
            {"zeta", 1e-3},
            {"B_ext", {0.1, 0.2, 0.3}},
            {"forcing", {{"amplitude", c.forcing}}},
            {"initial", {{"type", "noise"}, {"amplitude", 0.05}, {"field_amplitude", 0.05}}}}}};
}

// The interior of every variable after one RK3 step of dt.
std::vector<std::vector<real>> step(MhdRun& r, real dt) {
  for (int s = 0; s < rk3::kStages; ++s) r.model->stage(s, rk3::kAlpha[s], rk3::kBeta[s], dt);
  std::vector<std::vector<real>> out;
  for (int v = 0; v < r.model->vars(); ++v) out.push_back(interior_values(r.model->var(v)));
  return out;
}

void check(const Case& c) {
  SCOPED_TRACE(c.name());
  MhdRun generic(config(c, "generic")), pencil(config(c, "tiled"));
  ASSERT_STREQ(generic.model->kernel(), "generic");
  ASSERT_STREQ(pencil.model->kernel(), "pencil");
  std::vector<std::vector<real>> before;
  for (int v = 0; v < generic.model->vars(); ++v)
    before.push_back(interior_values(generic.model->var(v)));
  const real dt = 1e-4;
  const auto g = step(generic, dt), p = step(pencil, dt);
  double worst = 0;
  for (int v = 0; v < generic.model->vars(); ++v) {
    const Agreement a = compare(before[v], g[v], p[v]);
    const std::string name = generic.model->var(v).name();
    const bool held = c.kinematic && v != mhd::kAx && v != mhd::kAy && v != mhd::kAz;
    if (held)
      EXPECT_EQ(a.increment, 0) << name << " changed in a kinematic run";
    else
      EXPECT_GT(a.increment, 0) << name << " did not change";
    EXPECT_LE(a.ulps, 2) << name;
    EXPECT_LE(a.diff, 1e-14 * a.increment) << name;
    worst = std::fmax(worst, a.increment > 0 ? a.diff / a.increment : a.diff);
  }
  std::printf("%-44s pencil - generic: %.1e of the increment (worst variable)\n", c.name().c_str(),
              worst);
}

TEST(MhdPencilParity, EveryOrderWithAndWithoutEntropyAndForcing) {
  for (int order : {2, 4, 6, 8})
    for (bool isothermal : {false, true})
      for (double forcing : {0.0, 0.1})
        check({order, isothermal, forcing, false, {40, 12, 10}, true});
}

TEST(MhdPencilParity, BoundaryShellKinematicAndFewerDimensions) {
  check({6, false, 0.1, false, {40, 12, 10}, false});  // whole interior at once
  check({6, false, 0.0, true, {40, 12, 10}, true});
  check({4, false, 0.1, false, {36, 20, 1}, true});  // 2-D
  check({8, true, 0.0, false, {70, 1, 1}, true});    // 1-D
}

}  // namespace
}  // namespace staghorn::test
