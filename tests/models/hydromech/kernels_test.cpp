// Every optimised hydromech kernel (stored, pairs) against the generic (reference) one: the same
// iterations and steps on a small 3-D grid must agree to round-off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "hydromech_fixture.hpp"
#include "test_support.hpp"

namespace staghorn::test {
namespace {

// A flat porous layer in a 3-D box, closed in x, periodic in y, open top and bottom: every kind of
// halo (physical ghost, periodic image) feeds the stencils. nx: cells along x (spacing 0.5).
io::json layer(const std::string& kernel, double smoothing, int m, int nx = 12) {
  io::json b;
  for (const char* side : {"x_lo", "x_hi"}) b[side]["type"] = "closed";
  return {
      {"grid",
       {{"n", {nx, 10, 16}}, {"length", {nx * 0.5, 5.0, 8.0}}, {"periodic", {false, true, false}}}},
      {"time", {{"dt", 0.05}, {"steps", 2}}},
      {"solver", {{"tol", 1e-8}, {"ncheck", 20}}},
      {"hydromech",
       {{"kernel", kernel},
        {"bulk_viscosity",
         {{"exponent", m}, {"decompaction_weakening", 100}, {"smoothing", smoothing}}},
        {"boundary", b},
        {"initial",
         {{"type", "gaussian"},
          {"amplitude", 2},
          {"sigma", 0.6},
          {"aspect", {1.5, 1.5, 0.5}},
          {"center", {3.0, 2.5, 3.0}}}}}}};
}

// max |a - b| / max |b| over the interior.
double relative_difference(const Field& a, const Field& b) {
  const std::vector<real> x = interior_values(a), y = interior_values(b);
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    diff = std::max(diff, std::fabs(double(x[i]) - y[i]));
    scale = std::max(scale, std::fabs(double(y[i])));
  }
  return diff / scale;
}

struct Case {
  const char* kernel;  // stored, or pairs (two cells per thread: the x extents are even)
  double smoothing;
  int m;
  // Cells along x: 12; 140: rows of several warps of pairs, where only the threads at a row's two
  // ends store the x sides' ghosts; 14 and 15: a high x side's ghost in the middle or at the end
  // of its 32-byte sector, after interior cells other than the one it mirrors (a GPU fills the
  // rest of a ghost's sector from the ghost on: store_face_ghost).
  int nx = 12;
};

class StoredKernel : public ::testing::TestWithParam<Case> {};

TEST_P(StoredKernel, AgreesWithTheGenericKernelToRoundOff) {
  const Case c = GetParam();
  HydroMechRun ref(layer("generic", c.smoothing, c.m, c.nx)),
      fast(layer(c.kernel, c.smoothing, c.m, c.nx));
  EXPECT_EQ(fast.model->bytes_per_cell_iteration(), 7 * sizeof(real));
  // A few bare iterations (in two calls: the stored porosity is carried across them).
  for (HydroMechRun* r : {&ref, &fast}) {
    r->model->begin_solve(r->settings.dt);
    r->model->iterate(7);
    r->model->iterate(5);
  }
  const double after_iterations = relative_difference(fast.model->Pe(), ref.model->Pe());
  EXPECT_GT(std::fabs(interior_values(ref.model->Pe())[0]), 0);  // Pe has moved
  EXPECT_LT(after_iterations, 1e-12);
  // Whole steps (convergence checks, porosity update, a new step's restart of the stored phi).
  HydroMechRun ref2(layer("generic", c.smoothing, c.m, c.nx)),
      fast2(layer(c.kernel, c.smoothing, c.m, c.nx));
  EXPECT_EQ(ref2.run(), fast2.run());  // the same iteration counts
  EXPECT_LT(relative_difference(fast2.model->Pe(), ref2.model->Pe()), 1e-12);
  EXPECT_LT(relative_difference(fast2.model->phi(), ref2.model->phi()), 1e-12);
  char d[32];
  std::snprintf(d, sizeof d, "%.3e", after_iterations);
  RecordProperty("pe_difference_after_12_iterations", d);
}

INSTANTIATE_TEST_SUITE_P(Switches, StoredKernel,
                         ::testing::Values(Case{"stored", 0.02, 1}, Case{"stored", 0.0, 1},
                                           Case{"stored", 0.0, 0}, Case{"pairs", 0.02, 1},
                                           Case{"pairs", 0.0, 1}, Case{"pairs", 0.0, 0},
                                           Case{"pairs", 0.0, 1, 140}, Case{"pairs", 0.0, 1, 14},
                                           Case{"stored", 0.0, 1, 15}),
                         [](const auto& info) {
                           return std::string(info.param.kernel) +
                                  (info.param.smoothing > 0 ? "Smooth" : "Sharp") + "M" +
                                  std::to_string(info.param.m) +
                                  (info.param.nx == 12 ? "" : "Nx" + std::to_string(info.param.nx));
                         });

// On a GPU the iterations between residual checks are replayed as CUDA graphs (solver.graphs):
// the same bits as launched one by one, in bare batches of odd and even lengths and in whole steps
// (the periodic y axis's halo is copied within the graph; ncheck 20 replays units of 10).
TEST(GraphedIterations, SameBitsAsLaunchedOneByOne) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (const double smoothing : {0.02, 0.0}) {
    io::json graphed = layer("pairs", smoothing, 1), single = graphed;
    graphed["solver"]["graphs"] = true;
    single["solver"]["graphs"] = false;
    HydroMechRun a(graphed, Exec::cuda(0)), b(single, Exec::cuda(0));
    for (HydroMechRun* r : {&a, &b}) {
      r->model->begin_solve(r->settings.dt);
      for (const int count : {7, 40, 33, 6}) r->model->iterate(count);
    }
    EXPECT_GT(std::fabs(interior_values(b.model->Pe())[0]), 0);  // Pe has moved
    EXPECT_EQ(interior_values(a.model->Pe()), interior_values(b.model->Pe())) << smoothing;
    HydroMechRun a2(graphed, Exec::cuda(0)), b2(single, Exec::cuda(0));
    EXPECT_EQ(a2.run(), b2.run());
    EXPECT_EQ(interior_values(a2.model->Pe()), interior_values(b2.model->Pe())) << smoothing;
    EXPECT_EQ(interior_values(a2.model->phi()), interior_values(b2.model->phi())) << smoothing;
  }
}

TEST(Config, UnknownKernelNamesTheKey) {
  EXPECT_NE(error_of([&] { HydroMechRun r(layer("fast", 0, 1)); }).find("hydromech.kernel"),
            std::string::npos);
}

}  // namespace
}  // namespace staghorn::test
