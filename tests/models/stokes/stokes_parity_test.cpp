// The tiled CUDA iteration (models/stokes/tiled.hpp) against the generic kernel on the same GPU
// and on the CPU: a 3-D sinking ball with a 10^3 viscosity jump (smoothed), walls on every side,
// after 50 PT iterations from a random start. The tiled kernel divides fewer times (relax() as
// f (tau + 2 G e) with f = mu / (mu + G), one reciprocal of mu_max per cell), so the results
// agree to rounding, not to the bit: asserted to 1e-11 of each field's largest change over the 50
// iterations (a wrong term or index shows as O(1)), the edges on the high walls included (the
// tiled kernel stores them from its rim threads). Skipped where no GPU is visible, as in CI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "core/marches.hpp"
#include "models/stokes/tiled_shapes.hpp"
#include "stokes_fixture.hpp"
#include "test_support.hpp"

namespace staghorn::test {
namespace {

constexpr int kIterations = 50;

io::json ball(int n, const std::string& kernel) {
  return {{"grid", {{"n", {n, n, n}}}},
          {"solver", {{"tol_mode", "absolute"}}},
          {"stokes",
           {{"kernel", kernel},
            {"gravity", {0.0, 0.0, -1.0}},
            {"smoothing", 2},
            {"boundary", {{"x_lo", "no_slip"}, {"z_hi", "no_slip"}}},
            // The kernels alone: the rigid-body acceleration (automatic for this ball, gain 100)
            // would amplify their rounding differences a hundredfold at every iteration. Its own
            // GPU check is in rigid_body_test.
            {"inclusion",
             {{"radius", 0.2}, {"viscosity", 1e3}, {"density", 1.0}, {"rigid_acceleration", 0}}}}}};
}

std::vector<Field*> unknowns(StokesRun& r) {
  std::vector<Field*> fields{&r.model->P()};
  for (int a = 0; a < 3; ++a) fields.push_back(&r.model->V(a));
  for (int c = 0; c < 6; ++c) fields.push_back(&r.model->tau(c));
  return fields;
}

// The same random P, v and tau in every run (seeded; walls applied): the state before.
std::vector<std::vector<real>> randomize(StokesRun& r) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (Field* f : unknowns(r)) r.set(*f, [&](double, double, double) { return u(gen); });
  r.model->refresh();
  std::vector<std::vector<real>> out;
  for (Field* f : unknowns(r)) out.push_back(interior_values(*f, true));
  return out;
}

std::vector<std::vector<real>> iterate(StokesRun& r) {
  r.model->begin_solve(1);
  r.model->iterate(kIterations);
  r.exec.synchronize();
  std::vector<std::vector<real>> out;
  for (Field* f : unknowns(r)) out.push_back(interior_values(*f, true));
  return out;
}

// Every launch shape the kernel is compiled for (stokes::tiled::kShapes).
class StokesParityShapes : public ::testing::TestWithParam<int> {};

TEST_P(StokesParityShapes, TiledCudaIterationsMatchGeneric) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const int n = 48;  // partial tiles: 48 is no multiple of 30, 32 or 13 (tiles 30 x 6, 32 x 13)
  StokesRun cpu(ball(n, "generic")), generic(ball(n, "generic"), Exec::cuda(0)),
      tiled(ball(n, "tiled"), Exec::cuda(0));
  tiled.model->set_tiled_shape(GetParam());
  const std::vector<std::vector<real>> start = randomize(cpu);
  randomize(generic);
  randomize(tiled);
  const auto c = iterate(cpu), g = iterate(generic), t = iterate(tiled);
  const char* names[10] = {"P", "Vx", "Vy", "Vz", "txx", "tyy", "tzz", "txy", "txz", "tyz"};
  for (std::size_t f = 0; f < c.size(); ++f) {
    double change = 0, tg = 0, tc = 0, gc = 0;
    for (std::size_t q = 0; q < c[f].size(); ++q) {
      // tau_xy on the z wall's plane (k = n, outside the cells) is never read; the generic
      // kernel's WallEdges updates it, the tiled kernel leaves it.
      if (f == 7 && static_cast<int>(q) / ((n + 1) * (n + 1)) == n) continue;
      change = std::fmax(change, std::fabs(g[f][q] - start[f][q]));
      tg = std::isfinite(t[f][q]) ? std::fmax(tg, std::fabs(t[f][q] - g[f][q])) : INFINITY;
      tc = std::isfinite(t[f][q]) ? std::fmax(tc, std::fabs(t[f][q] - c[f][q])) : INFINITY;
      gc = std::fmax(gc, std::fabs(g[f][q] - c[f][q]));
    }
    std::printf(
        "%-4s largest change %.3e | tiled - generic cuda %.2e | tiled - cpu %.2e | "
        "generic cuda - cpu %.2e (relative to the change)\n",
        names[f], change, tg / change, tc / change, gc / change);
    EXPECT_GT(change, 0) << names[f];
    EXPECT_LE(tg, 1e-11 * change) << names[f];
    EXPECT_LE(tc, 1e-11 * change) << names[f];
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, StokesParityShapes,
                         ::testing::Range(0, stokes::tiled::kShapeCount));

// Where a block's march along z begins and ends changes no bit (the marches of one rank's block
// and of two ranks' halves, or of a block split for hiding, differ): 50 iterations with marches
// of 16 planes (the default), of 5 then 3, and one march through the whole depth give the same
// fields to the bit.
TEST(StokesParity, TiledMarchesOfAnyLengthGiveTheSameBits) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const int n = 48;
  StokesRun plain(ball(n, "tiled"), Exec::cuda(0)), cut(ball(n, "tiled"), Exec::cuda(0)),
      whole(ball(n, "tiled"), Exec::cuda(0));
  cut.model->set_tiled_marches(Chunks{5, 3, 3});
  whole.model->set_tiled_marches(Chunks::uniform(n));
  for (StokesRun* r : {&plain, &cut, &whole}) randomize(*r);
  const auto p = iterate(plain), c = iterate(cut), w = iterate(whole);
  for (std::size_t f = 0; f < p.size(); ++f) {
    int cut_differ = 0, whole_differ = 0;
    for (std::size_t q = 0; q < p[f].size(); ++q) {
      cut_differ += !(c[f][q] == p[f][q]);
      whole_differ += !(w[f][q] == p[f][q]);
    }
    EXPECT_EQ(cut_differ, 0) << "field " << f << ": values that differ";
    EXPECT_EQ(whole_differ, 0) << "field " << f << ": values that differ";
  }
}

// On a GPU the iterations between residual checks are replayed as CUDA graphs (solver.graphs):
// the same bits as launched one by one, tiled and generic, in batches of odd and even lengths (a
// model's first batch runs one by one, the later ones replay).
TEST(StokesParity, GraphedIterationsMatchOneByOneToTheBit) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (const char* kernel : {"tiled", "generic"}) {
    std::vector<std::vector<real>> result[2];
    for (const bool graphs : {true, false}) {
      io::json c = ball(40, kernel);
      c["solver"]["graphs"] = graphs;
      StokesRun r(c, Exec::cuda(0));
      randomize(r);
      r.model->begin_solve(1);
      for (const int count : {3, 20, 17}) r.model->iterate(count);
      for (Field* f : unknowns(r)) result[graphs].push_back(interior_values(*f, true));
    }
    for (std::size_t f = 0; f < result[0].size(); ++f)
      EXPECT_EQ(result[true][f], result[false][f]) << kernel << ", field " << f;
  }
}

// The tiled kernel stores the velocities' ghosts beyond the x walls itself (XWallGhosts, a no-slip
// wall at x_lo and a free-slip one at x_hi), and the walls' fill sets only the other sides: every
// ghost, edges and corners included, as the generic kernel and the fill of every side leave it.
// n = 42: the high wall's ghosts lie in the middle of their 32-byte sectors, after interior faces
// that the fill of the rest of the sector must not touch (store_face_ghost).
TEST(StokesParity, TiledKernelSetsTheXWallGhostsAsTheFill) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (const int n : {40, 42}) {
    StokesRun generic(ball(n, "generic"), Exec::cuda(0)), tiled(ball(n, "tiled"), Exec::cuda(0));
    randomize(generic);
    randomize(tiled);
    std::vector<std::vector<real>> start;
    for (int a = 0; a < 3; ++a) start.push_back(all_values(generic.model->V(a)));
    iterate(generic);
    iterate(tiled);
    const Layout& l = generic.model->V(0).layout();
    for (int a = 0; a < 3; ++a) {
      const AllPoints c = compare_all_points(l, start[a], all_values(generic.model->V(a)),
                                             all_values(tiled.model->V(a)));
      EXPECT_GT(c.x_ghost_change, 0) << "V" << a << ", n " << n << ": the x walls' ghosts moved";
      EXPECT_LE(c.diff, 1e-11 * c.change) << "V" << a << ", n " << n;
    }
  }
}

}  // namespace
}  // namespace staghorn::test
