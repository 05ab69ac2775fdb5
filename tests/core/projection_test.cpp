// The projection's bookkeeping (core/projection.hpp): each rank's block, shell faces and halo
// messages by route, counted by hand on small process grids, and the time it makes of them.
#include "core/projection.hpp"

#include <gtest/gtest.h>

namespace staghorn::projection {
namespace {

Grid make_grid(Int3 n, std::array<bool, 3> periodic) {
  Grid g;
  g.n = n;
  g.periodic = periodic;
  return g;
}

// Two ranks along a bounded z: one face each (8 x 6 cells, 2 fields of 8 bytes), the z shell.
TEST(RankWork, TwoRanksOnABoundedAxisShareOneFace) {
  const Grid g = make_grid({8, 6, 9}, {false, false, false});
  const HaloShape halo{1, true, 2, 8};
  const std::vector<RankWork> same_node = rank_work(g, {1, 1, 2}, halo, 4);
  ASSERT_EQ(same_node.size(), 2u);
  EXPECT_EQ(same_node[0].cells, 8 * 6 * 5);  // 9 cells: the first block takes the extra one
  EXPECT_EQ(same_node[1].cells, 8 * 6 * 4);
  for (const RankWork& w : same_node) {
    EXPECT_EQ(w.messages[Route::node], 1);
    EXPECT_EQ(w.messages[Route::network], 0);
    EXPECT_EQ(w.bytes[Route::node], 8 * 6 * 2 * 8);
    EXPECT_EQ(w.shell_faces, (std::array<long long, 3>{0, 0, 8 * 6}));
  }
  // One rank per node: the face goes over the network.
  const std::vector<RankWork> apart = rank_work(g, {1, 1, 2}, halo, 1);
  EXPECT_EQ(apart[0].messages[Route::network], 1);
  EXPECT_EQ(apart[0].messages[Route::node], 0);
}

// Periodic everywhere, split along x only: every segment that crosses x goes to the other rank
// (9 of them each way, 18 in all), those within the block wrap onto itself (no message, no shell).
TEST(RankWork, PeriodicAxesHeldWholeCopyWithoutMessages) {
  const Grid g = make_grid({8, 4, 4}, {true, true, true});
  const std::vector<RankWork> w = rank_work(g, {2, 1, 1}, {2, true, 1, 8}, 4);
  EXPECT_EQ(w[0].messages[Route::node], 18);
  // Faces 2 x 4 x 4, edges 2 x 2 x 4 (8 of them), corners 2 x 2 x 2 (8), twice over.
  EXPECT_EQ(w[0].bytes[Route::node], 8.0 * (2 * 32 + 8 * 16 + 8 * 8));
  EXPECT_EQ(w[0].shell_faces, (std::array<long long, 3>{16, 0, 0}));
  // Without edges and corners only the two faces travel.
  EXPECT_EQ(rank_work(g, {2, 1, 1}, {2, false, 1, 8}, 4)[0].messages[Route::node], 2);
  // One rank: everything is a copy onto itself.
  const RankWork alone = rank_work(g, {1, 1, 1}, {2, true, 1, 8}, 4)[0];
  EXPECT_EQ(alone.messages[Route::node] + alone.messages[Route::network], 0);
  EXPECT_EQ(alone.shell_faces, (std::array<long long, 3>{0, 0, 0}));
}

// t = shell + max(compute, comm); the routes run at once, a route's messages one after the other.
TEST(IterationTime, ShellPlusTheLongerOfComputeAndHalo) {
  RankWork w;
  w.cells = 1000;
  w.shell_faces = {10, 0, 20};
  w.messages = {2, 1};
  w.bytes = {400, 100};
  Costs c;
  c.cell_rate = 1e6;  // 1 ms of compute
  c.shell_face_s = {1e-6, 5e-6, 2e-6};
  c.links = {Link{1e-5, 1e6}, Link{1e-6, 1e5}};  // node: 2e-5 + 4e-4; network: 1e-6 + 1e-3
  const Time t = iteration_time(w, c);
  EXPECT_DOUBLE_EQ(t.compute_s, 1e-3);
  EXPECT_DOUBLE_EQ(t.shell_s, 10e-6 + 40e-6);
  EXPECT_DOUBLE_EQ(t.comm_s, 1.001e-3);
  EXPECT_DOUBLE_EQ(t.total_s, 50e-6 + 1.001e-3);
  w.cells = 2000;  // compute now outlasts the halo
  EXPECT_DOUBLE_EQ(iteration_time(w, c).total_s, 50e-6 + 2e-3);
  RankWork light = w;
  light.cells = 10;
  EXPECT_DOUBLE_EQ(slowest({light, w}, c).total_s, iteration_time(w, c).total_s);
}

}  // namespace
}  // namespace staghorn::projection
