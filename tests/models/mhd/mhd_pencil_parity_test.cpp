// The CPU pencil kernel (mhd.kernel = tiled on the CPU, models/mhd/pencil.hpp) against the generic
// kernel, the reference: one whole RK3 step (the first stage reads no w, the last writes none) on a
// random state, for every order the model has (2-8), with entropy and isothermal, forcing on and
// off, kinematic, in 3-D, 2-D and 1-D. Periodic axes are the only boundaries the model supports;
// on one rank the pencil kernel writes their halos itself (periodic images) where the generic
// kernel's run exchanges them, so the later stages also check the images. The grid is no multiple
// of the pencil's segment along x, so that full segments and a shorter last one both run.
// Criterion (as mhd_parity_test): the state after the step within 2 ulps of each field's range and
// the difference within 1e-14 of the step's largest increment. The pencil kernel evaluates every
// cell with the generic kernel's expressions in the same order, so in this build the difference
// is expected to be 0 (printed).
// Two more checks to the bit: a region cut into pieces (as the boundary shell and the inner region
// of a hidden exchange, and the blocks of other rank counts, cut it) gives what the whole region
// gives, and the halo images equal an exchange of the same state.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "agreement.hpp"
#include "core/for_each.hpp"
#include "mhd_fixture.hpp"
#include "models/mhd/pencil.hpp"
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
  std::string name() const {
    std::string s = "order " + std::to_string(order) + (isothermal ? " isothermal" : " entropy");
    s += forcing > 0 ? " forced" : "";
    s += kinematic ? " kinematic" : "";
    return s + " " + std::to_string(n[0]) + "x" + std::to_string(n[1]) + "x" + std::to_string(n[2]);
  }
};

io::json config(const Case& c, const std::string& kernel) {
  return {{"grid", {{"n", c.n}, {"length", {6.3, 5.1, 4.7}}, {"periodic", {true, true, true}}}},
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
  ASSERT_STREQ(pencil.model->halo_mode(), "images");
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
  std::printf("%-38s pencil - generic: %.1e of the increment (worst variable)\n", c.name().c_str(),
              worst);
}

TEST(MhdPencilParity, EveryOrderWithAndWithoutEntropyAndForcing) {
  for (int order : {2, 4, 6, 8})
    for (bool isothermal : {false, true})
      for (double forcing : {0.0, 0.1}) check({order, isothermal, forcing, false, {40, 12, 10}});
}

TEST(MhdPencilParity, KinematicAndFewerDimensions) {
  check({6, false, 0.0, true, {40, 12, 10}});
  check({4, false, 0.1, false, {36, 20, 1}});  // 2-D
  check({8, true, 0.0, false, {70, 1, 1}});    // 1-D
}

// The first stage of a model run, every variable's next state (halos included) after run(region).
template <class Run>
std::vector<std::vector<real>> next_state(const Case& c, Run run) {
  MhdRun m(config(c, "generic"));
  std::vector<Field> next;
  mhd::StageArgs a{};
  for (int v = 0; v < m.model->vars(); ++v) {
    next.emplace_back("next", Location::cell, m.model->var(v).layout(), Backend::cpu);
    a.in.p[v] = m.model->var(v).view().p;
    a.out.p[v] = next.back().view().p;
    a.w.p[v] = m.model->rk_register(v).view().p;
  }
  a.shape = m.model->var(0).view();
  const double dx[3] = {6.3 / c.n[0], 5.1 / c.n[1], 4.7 / c.n[2]};
  a.ax = {{1, a.shape.sy, a.shape.sz}, {real(1 / dx[0]), real(1 / dx[1]), real(1 / dx[2])}};
  a.ph = m.model->physics();
  a.alpha = 0, a.beta = real(1.0 / 3), a.dt = real(1e-3), a.read_w = false;
  run(a, m.model->var(0).layout());
  std::vector<std::vector<real>> out;
  for (const Field& f : next) out.push_back(f.to_host());
  return out;
}

long long differing(const std::vector<std::vector<real>>& a,
                    const std::vector<std::vector<real>>& b) {
  long long n = 0;
  for (std::size_t v = 0; v < a.size(); ++v)
    for (std::size_t i = 0; i < a[v].size(); ++i)
      n += std::memcmp(&a[v][i], &b[v][i], sizeof(real)) != 0;
  return n;
}

TEST(MhdPencilParity, PiecesOfARegionGiveTheWholeRegionsBits) {
  const Case c{6, false, 0.0, false, {45, 11, 9}};
  const auto whole = next_state(c, [](const mhd::StageArgs& a, const Layout& l) {
    mhd::run_pencils<6, true>(a, l.interior());
  });
  // Cuts off the segments' grid (32 cells) along x, and thinner than a halo along y and z.
  const int xs[] = {0, 13, 45}, ys[] = {0, 2, 11}, zs[] = {0, 1, 9};
  const auto pieces = next_state(c, [&](const mhd::StageArgs& a, const Layout&) {
    for (int x = 0; x < 2; ++x)
      for (int y = 0; y < 2; ++y)
        for (int z = 0; z < 2; ++z)
          mhd::run_pencils<6, true>(
              a, Region{{xs[x], ys[y], zs[z]}, {xs[x + 1], ys[y + 1], zs[z + 1]}});
  });
  const auto generic = next_state(c, [](const mhd::StageArgs& a, const Layout& l) {
    for_each(Exec::cpu(), l.interior(), mhd::Substep<6, true>{a});
  });
  EXPECT_EQ(differing(whole, pieces), 0);
  EXPECT_EQ(differing(whole, generic), 0);
}

// On one rank the pencil kernel's halo (the periodic images it writes) equals an exchange of the
// same state, edges and corners included, after two stages (the second reads the first's images).
TEST(MhdPencilParity, HaloImagesEqualExchange) {
  MhdRun pencil(config({6, false, 0.1, false, {40, 12, 10}}, "tiled"));
  ASSERT_STREQ(pencil.model->halo_mode(), "images");
  for (int s = 0; s < 2; ++s) pencil.model->stage(s, rk3::kAlpha[s], rk3::kBeta[s], 1e-4);
  std::vector<std::vector<real>> images, exchanged;
  for (int v = 0; v < pencil.model->vars(); ++v) images.push_back(pencil.model->var(v).to_host());
  pencil.model->refresh();  // the exchange, over the same arrays
  for (int v = 0; v < pencil.model->vars(); ++v)
    exchanged.push_back(pencil.model->var(v).to_host());
  EXPECT_EQ(differing(images, exchanged), 0);
}

}  // namespace
}  // namespace staghorn::test
