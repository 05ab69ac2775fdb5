// Decomposition: choice of the process grid, requested grids, neighbours, owned points.
#include "core/decomposition.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "test_support.hpp"

namespace staghorn {
namespace {

using test::error_of;
using test::gather_text;

Grid make_grid(Int3 n, std::array<bool, 3> periodic) {
  Grid g;
  g.n = n;
  g.periodic = periodic;
  return g;
}

std::string str(Int3 v) {
  return std::to_string(v.x) + "x" + std::to_string(v.y) + "x" + std::to_string(v.z);
}

// All process grids of `ranks` that leave inactive axes whole and blocks no thinner than `halo`
// (`even`: only those that split `grid` evenly).
std::vector<Int3> all_dims(const Grid& grid, int ranks, int halo, bool even) {
  std::vector<Int3> out;
  for (int px = 1; px <= ranks; ++px)
    for (int py = 1; px * py <= ranks; ++py) {
      if (ranks % (px * py)) continue;
      const Int3 d{px, py, ranks / (px * py)};
      bool ok = true;
      for (int a = 0; a < 3; ++a)
        ok = ok && (!even || grid.n[a] % d[a] == 0) &&
             (grid.active(a) ? grid.n[a] / d[a] >= halo : d[a] == 1);
      if (ok) out.push_back(d);
    }
  return out;
}
std::vector<Int3> valid_dims(const Grid& grid, int ranks) { return all_dims(grid, ranks, 1, true); }

// ---- Blocks along an axis (pure logic) --------------------------------------------------------

TEST(Blocks, TileTheAxisAndDifferByAtMostOneCell) {
  for (int n = 1; n <= 40; ++n)
    for (int p = 1; p <= n; ++p) {
      int next = 0, least = n, most = 0;
      for (int c = 0; c < p; ++c) {
        const int cells = Decomposition::block_cells(n, p, c);
        EXPECT_EQ(Decomposition::block_start(n, p, c), next) << n << " over " << p << ", " << c;
        next += cells;
        least = std::min(least, cells), most = std::max(most, cells);
      }
      EXPECT_EQ(next, n) << n << " over " << p;
      EXPECT_LE(most - least, 1) << n << " over " << p;
      EXPECT_EQ(most, Decomposition::block_cells(n, p, 0)) << "the first block is a largest one";
    }
  const Grid g = make_grid({127, 255, 30}, {false, true, false});
  EXPECT_EQ(Decomposition::largest_block(g, {2, 3, 4}), (Int3{64, 85, 8}));
}

// ---- Halo cost (pure logic, one rank) ---------------------------------------------------------

TEST(HaloCost, PrefersCubesOnPeriodicCube) {
  const Grid g = make_grid({64, 64, 64}, {true, true, true});
  const long long cube = Decomposition::halo_cost(g, {2, 2, 2}, 1);
  for (Int3 d : {Int3{1, 1, 8}, Int3{1, 2, 4}, Int3{4, 2, 1}, Int3{8, 1, 1}, Int3{1, 8, 1}})
    EXPECT_LT(cube, Decomposition::halo_cost(g, d, 1)) << str(d);
}

TEST(HaloCost, PrefersSplittingTheLongAxis) {
  for (bool periodic : {false, true}) {
    const Grid g = make_grid({256, 64, 64}, {periodic, periodic, periodic});
    const long long slabs = Decomposition::halo_cost(g, {4, 1, 1}, 1);
    for (Int3 d : {Int3{2, 2, 1}, Int3{2, 1, 2}, Int3{1, 2, 2}, Int3{1, 4, 1}, Int3{1, 1, 4}})
      EXPECT_LT(slabs, Decomposition::halo_cost(g, d, 1)) << str(d) << " periodic " << periodic;
  }
}

TEST(HaloCost, CountsTheShellOfTheBusiestRank) {
  // Bounded x and z, periodic y. Counted by hand: the padded block minus the owned one, with
  // widths (faces x halo) per axis; 2 ranks on a bounded axis exchange one face each.
  const Grid g = make_grid({32, 48, 16}, {false, true, false});
  EXPECT_EQ(Decomposition::halo_cost(g, {2, 2, 2}, 1), 17 * 26 * 9 - 16 * 24 * 8);
  EXPECT_EQ(Decomposition::halo_cost(g, {2, 2, 2}, 2), 18 * 28 * 10 - 16 * 24 * 8);
  EXPECT_EQ(Decomposition::halo_cost(g, {4, 1, 2}, 1), 10 * 50 * 9 - 8 * 48 * 8);
  EXPECT_EQ(Decomposition::halo_cost(g, {1, 1, 1}, 1), 32 * 50 * 16 - 32 * 48 * 16);
  // One rank on a bounded box exchanges nothing; on a periodic one it wraps onto itself.
  EXPECT_EQ(Decomposition::halo_cost(make_grid({32, 32, 32}, {false, false, false}), {1, 1, 1}, 1),
            0);
  EXPECT_GT(Decomposition::halo_cost(make_grid({32, 32, 32}, {true, false, false}), {1, 1, 1}, 1),
            0);
  // nz = 1 carries no halo, periodic or not.
  const Grid flat_b = make_grid({64, 64, 1}, {true, true, false});
  const Grid flat_p = make_grid({64, 64, 1}, {true, true, true});
  EXPECT_EQ(Decomposition::halo_cost(flat_b, {2, 2, 1}, 1),
            Decomposition::halo_cost(flat_p, {2, 2, 1}, 1));
}

TEST(HaloCost, CountsUnevenBlocksByTheirBusiestRank) {
  // 7 cells over 3 bounded ranks: blocks 3, 2, 2; the first has one face, the middle one two.
  const Grid g = make_grid({7, 5, 1}, {false, false, false});
  EXPECT_EQ(Decomposition::halo_cost(g, {3, 1, 1}, 1), (2 + 2) * 5 - 2 * 5);
  EXPECT_EQ(Decomposition::padded_cost(g, {3, 1, 1}, 1), (3 + 1) * 5);
  // Periodic: every block has two faces, so the largest block is the busiest in both counts.
  const Grid p = make_grid({7, 5, 1}, {true, true, false});
  EXPECT_EQ(Decomposition::halo_cost(p, {3, 1, 1}, 2), (3 + 4) * (5 + 4) - 3 * 5);
  EXPECT_EQ(Decomposition::padded_cost(p, {3, 1, 1}, 2), (3 + 4) * (5 + 4));
}

// On even splits the padded block is the even share plus the halo: the same order as halo_cost.
TEST(PaddedCost, IsTheEvenSharePlusTheHaloOnEvenSplits) {
  for (const Grid& g :
       {make_grid({64, 48, 32}, {false, true, false}), make_grid({64, 64, 64}, {true, true, true})})
    for (int ranks : {1, 2, 4, 8, 16})
      for (Int3 d : valid_dims(g, ranks))
        for (int r : {1, 3})
          EXPECT_EQ(Decomposition::padded_cost(g, d, r),
                    g.cells() / ranks + Decomposition::halo_cost(g, d, r))
              << str(g.n) << " on " << str(d) << " r " << r;
}

// The search weighs a block's extra cells: on 64 x 65 (bounded) over 2 ranks, splitting y has
// the smaller halo (64 cells against 65) but its larger block (64 x 33) has more cells to compute
// and receive (64 x 34) than either block of the x split (32 x 65, padded 33 x 65).
TEST(PaddedCost, SearchWeighsTheExtraCellsOfUnevenBlocks) {
  const Grid g = make_grid({64, 65, 1}, {false, false, false});
  EXPECT_LT(Decomposition::halo_cost(g, {1, 2, 1}, 1), Decomposition::halo_cost(g, {2, 1, 1}, 1));
  EXPECT_EQ(Decomposition::padded_cost(g, {2, 1, 1}, 1), 33 * 65);
  EXPECT_EQ(Decomposition::padded_cost(g, {1, 2, 1}, 1), 64 * 34);
  EXPECT_EQ(Decomposition::choose_dims(g, 2, 1), (Int3{2, 1, 1}));
}

TEST(HaloCost, TwoRanksOnABoundedAxisShareOneFace) {
  // On a bounded 64^3 box, 2x2x2 gives every rank one neighbour per axis (3 faces of 32x32 each),
  // 1x2x4 gives the inner z ranks two 64x32 faces plus one 64x16 face: 2x2x2 is cheaper per rank
  // and in total, so it must cost less.
  const Grid g = make_grid({64, 64, 64}, {false, false, false});
  EXPECT_LT(Decomposition::halo_cost(g, {2, 2, 2}, 1), Decomposition::halo_cost(g, {1, 2, 4}, 1));
  EXPECT_LT(Decomposition::halo_cost(g, {2, 2, 2}, 1), Decomposition::halo_cost(g, {4, 2, 1}, 1));
}

// ---- Pekkila et al. 2022, Eq. 7 and table A.1 ---------------------------------------------------

// Eq. 7 written out on its own: Q = 2 (C_M' - C_N'), the cells a node sends and receives when all
// of its halo faces another subdomain, with M' = N / P + 2r the padded subdomain.
long long pekkila_q(Int3 n, Int3 p, int r) {
  long long padded = 1, owned = 1;
  for (int a = 0; a < 3; ++a) {
    padded *= n[a] / p[a] + 2 * r;
    owned *= n[a] / p[a];
  }
  return 2 * (padded - owned);
}

TEST(Pekkila, HaloCostIsHalfOfEq7OnPeriodicGrids) {
  for (Int3 n : {Int3{512, 512, 512}, Int3{1024, 512, 512}, Int3{48, 32, 16}, Int3{96, 48, 24}}) {
    const Grid g = make_grid(n, {true, true, true});
    for (int ranks = 1; ranks <= 64; ++ranks)
      for (Int3 p : valid_dims(g, ranks))
        for (int r : {1, 2, 3})
          EXPECT_EQ(2 * Decomposition::halo_cost(g, p, r), pekkila_q(n, p, r))
              << str(n) << " on " << str(p) << " r " << r;
  }
}

// Table A.1 (a) and (b): every row is what the search picks for a periodic grid, and Eq. 7 on its
// own agrees that no other factorisation of the rank count needs fewer halo cells.
TEST(Pekkila, ReproducesTableA1) {
  struct Row {
    int ranks;
    Int3 p;
  };
  const struct {
    Int3 n;
    std::vector<Row> rows;
  } tables[] = {{{512, 512, 512},
                 {{1, {1, 1, 1}},
                  {2, {2, 1, 1}},
                  {4, {2, 2, 1}},
                  {8, {2, 2, 2}},
                  {16, {4, 2, 2}},
                  {32, {4, 4, 2}},
                  {64, {4, 4, 4}}}},
                {{1024, 512, 512},
                 {{1, {1, 1, 1}},
                  {2, {2, 1, 1}},
                  {4, {4, 1, 1}},
                  {8, {4, 2, 1}},
                  {16, {4, 2, 2}},
                  {32, {8, 2, 2}},
                  {64, {8, 4, 2}}}}};
  for (const auto& t : tables) {
    const Grid g = make_grid(t.n, {true, true, true});
    for (const Row& row : t.rows)
      for (int r : {1, 3}) {  // their sixth-order stencils have radius 3
        SCOPED_TRACE(str(t.n) + " on " + std::to_string(row.ranks) + " ranks, r " +
                     std::to_string(r));
        EXPECT_EQ(Decomposition::choose_dims(g, row.ranks, r), row.p)
            << str(Decomposition::choose_dims(g, row.ranks, r));
        for (Int3 p : valid_dims(g, row.ranks))
          EXPECT_LE(pekkila_q(t.n, row.p, r), pekkila_q(t.n, p, r)) << str(p);
      }
  }
}

// Every rank count from 1 to 64, not only the table's powers of two: the search returns a
// factorisation of the rank count with the least padded block among all of them, and where the
// grid splits evenly, one with the least Eq. 7 cost among the even ones.
TEST(Pekkila, SearchIsOptimalForEveryRankCountUpTo64) {
  for (Int3 n : {Int3{512, 512, 512}, Int3{1024, 512, 512}, Int3{255, 255, 255}}) {
    const Grid g = make_grid(n, {true, true, true});
    for (int ranks = 1; ranks <= 64; ++ranks) {
      const Int3 p = Decomposition::choose_dims(g, ranks, 3);
      ASSERT_EQ(p.volume(), ranks) << str(n);
      for (Int3 q : all_dims(g, ranks, 3, false))
        EXPECT_LE(Decomposition::padded_cost(g, p, 3), Decomposition::padded_cost(g, q, 3))
            << str(n) << " on " << ranks << ": " << str(p) << " against " << str(q);
      const std::vector<Int3> even = valid_dims(g, ranks);
      for (Int3 q : even)
        EXPECT_LE(pekkila_q(n, p, 3), pekkila_q(n, q, 3)) << ranks << " " << str(q);
    }
  }
}

// ---- Choice of the process grid (world communicator) -------------------------------------------

TEST(BestDims, MinimisesThePaddedBlockOverAllSplits) {
  const Comm world;
  const int p = world.size();
  for (const Grid& g :
       {make_grid({64, 64, 64}, {true, true, true}),
        make_grid({256, 64, 64}, {false, false, false}),
        make_grid({48, 32, 16}, {true, false, true}), make_grid({64, 64, 1}, {false, false, false}),
        make_grid({64, 32, 1}, {true, true, true}), make_grid({127, 127, 1}, {false, false, false}),
        make_grid({100, 60, 30}, {false, true, false}),
        make_grid({45, 45, 45}, {true, true, true})}) {
    for (int halo : {1, 2}) {
      const Decomposition dec(g, world, {0, 0, 0}, halo);
      const Int3 d = dec.dims();
      SCOPED_TRACE("grid " + str(g.n) + " halo " + std::to_string(halo) + " dims " + str(d));
      EXPECT_EQ(d.volume(), p);
      long long best = -1;
      for (Int3 c : all_dims(g, p, halo, false)) {
        const long long cost = Decomposition::padded_cost(g, c, halo);
        if (best < 0 || cost < best) best = cost;
      }
      EXPECT_EQ(Decomposition::padded_cost(g, d, halo), best);
      for (int a = 0; a < 3; ++a) {
        EXPECT_EQ(dec.local_cells()[a], Decomposition::block_cells(g.n[a], d[a], dec.coords()[a]));
        EXPECT_EQ(dec.offset()[a], Decomposition::block_start(g.n[a], d[a], dec.coords()[a]));
      }
      EXPECT_EQ(world.sum(dec.local_cells().volume()), g.cells());
    }
  }
}

TEST(BestDims, KnownAnswers) {
  const Comm world;
  const int p = world.size();
  const Decomposition cube(make_grid({64, 64, 64}, {true, true, true}), world);
  const Decomposition slab(make_grid({256, 64, 64}, {false, false, false}), world);
  const Decomposition slab_p(make_grid({256, 64, 64}, {true, true, true}), world);
  const Decomposition flat(make_grid({64, 64, 1}, {true, true, true}), world);
  const Decomposition flat_b(make_grid({16, 16, 1}, {false, false, false}), world);
  // A 2-D grid is never split along z, whatever the rank count.
  EXPECT_EQ(flat.dims().z, 1);
  EXPECT_EQ(flat_b.dims().z, 1);
  EXPECT_EQ(flat.halo(2), 0);
  EXPECT_EQ(flat.local_cells().z, 1);
  if (p == 1) {
    EXPECT_EQ(cube.dims(), (Int3{1, 1, 1}));
    EXPECT_EQ(cube.local_cells(), (Int3{64, 64, 64}));
  }
  if (p == 2 || p == 4) {  // (on 8 ranks the periodic slab ties with 4x1x2)
    EXPECT_EQ(slab.dims(), (Int3{p, 1, 1})) << str(slab.dims());
    EXPECT_EQ(slab_p.dims(), (Int3{p, 1, 1})) << str(slab_p.dims());
  }
  if (p == 4) {
    EXPECT_EQ(flat.dims(), (Int3{2, 2, 1})) << str(flat.dims());
  }
  if (p == 8) {
    EXPECT_EQ(cube.dims(), (Int3{2, 2, 2})) << str(cube.dims());
  }
}

TEST(BestDims, BoundedCubeOnEightRanksIsTwoByTwoByTwo) {
  const Comm world;
  if (world.size() != 8) GTEST_SKIP() << "needs 8 ranks";
  const Decomposition dec(make_grid({64, 64, 64}, {false, false, false}), world);
  EXPECT_EQ(dec.dims(), (Int3{2, 2, 2})) << str(dec.dims());
}

// ---- Requested process grids and impossible splits ---------------------------------------------

// An axis wraps onto the block itself when it is periodic and held by one rank.
TEST(Requested, AWholePeriodicAxisWrapsOntoItself) {
  const Comm world;
  const int p = world.size();
  const Decomposition dec(make_grid({8 * p, 8, 8}, {true, true, false}), world, {p, 1, 1});
  EXPECT_EQ(dec.wraps_onto_itself(0), p == 1);
  EXPECT_TRUE(dec.wraps_onto_itself(1));
  EXPECT_FALSE(dec.wraps_onto_itself(2));  // bounded
}

TEST(Requested, IsUsedWhenItFits) {
  const Comm world;
  const int p = world.size();
  const Decomposition dec(make_grid({8, 8 * p, 8}, {false, false, false}), world, {1, p, 1});
  EXPECT_EQ(dec.dims(), (Int3{1, p, 1}));
  EXPECT_EQ(dec.local_cells(), (Int3{8, 8, 8}));
  EXPECT_EQ(dec.offset(), (Int3{0, 8 * dec.coords().y, 0}));
}

TEST(Requested, WrongRankCountThrows) {
  const Comm world;
  const int p = world.size();
  const Grid g = make_grid({16, 16, 16}, {false, false, false});
  const std::string msg = error_of([&] { Decomposition(g, world, {2 * p, 1, 1}); });
  EXPECT_NE(msg.find("does not match"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::to_string(p) + " ranks"), std::string::npos) << msg;
}

// 4 p + 1 cells over p ranks: the first rank along the axis takes 5 cells, the others 4.
TEST(Requested, UnevenSplitGivesBlocksWithinOneCell) {
  const Comm world;
  const int p = world.size();
  const int odd = 4 * p + 1;
  for (int a = 0; a < 3; ++a) {
    Int3 n{8, 8, 8}, req{1, 1, 1};
    n[a] = odd, req[a] = p;
    const Decomposition dec(make_grid(n, {a == 1, a == 1, false}), world, req);
    const int c = dec.coords()[a];
    EXPECT_EQ(dec.local_cells()[a], c == 0 ? 5 : 4) << "axis " << a << ", block " << c;
    EXPECT_EQ(dec.offset()[a], c == 0 ? 0 : 4 * c + 1) << "axis " << a << ", block " << c;
    EXPECT_EQ(world.sum(dec.local_cells().volume()), n.volume()) << "axis " << a;
  }
}

TEST(Requested, BlocksThinnerThanTheHaloThrowNamingTheAxis) {
  const Comm world;
  const int p = world.size();
  if (p == 1) GTEST_SKIP() << "one rank never splits an axis";
  const struct {
    Grid grid;
    Int3 req;
    const char* axis;
    const char* why;
  } cases[] = {{make_grid({2 * p - 1, 8, 8}, {false, false, false}), {p, 1, 1}, "along x", "halo"},
               {make_grid({8, 2 * p - 1, 8}, {true, true, true}), {1, p, 1}, "along y", "halo"},
               {make_grid({8, 8, 2 * p - 1}, {false, true, false}), {1, 1, p}, "along z", "halo"},
               // nz = 1 cannot be split at all.
               {make_grid({8, 8, 1}, {false, false, false}), {1, 1, p}, "along z", "inactive"}};
  for (const auto& c : cases) {
    const std::string msg = error_of([&] { Decomposition(c.grid, world, c.req, 2); });
    EXPECT_NE(msg.find(c.axis), std::string::npos) << str(c.req) << ": " << msg;
    EXPECT_NE(msg.find(c.why), std::string::npos) << str(c.req) << ": " << msg;
  }
}

TEST(Impossible, MoreRanksThanFitThrows) {
  const Comm world;
  const int p = world.size();
  if (p > 1) {
    // 3 cells per axis over 2 ranks or more leave a block of 1 cell, thinner than a halo of 2.
    const std::string msg = error_of([&] {
      Decomposition(make_grid({3, 3, 3}, {true, true, true}), world, {0, 0, 0}, 2);
    });
    EXPECT_NE(msg.find("no process grid"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(p) + " ranks"), std::string::npos) << msg;
    // A 1-D grid of p/2 cells has room for only p/2 ranks (y and z are inactive).
    const std::string msg1 = error_of([&] {
      Decomposition(make_grid({p / 2, 1, 1}, {true, false, false}), world);
    });
    EXPECT_NE(msg1.find("no process grid"), std::string::npos) << msg1;
  }
  // Blocks thinner than the halo cannot be exchanged.
  const Comm self(MPI_COMM_SELF);
  const std::string msg = error_of([&] {
    Decomposition(make_grid({2, 8, 8}, {false, false, false}), self, {0, 0, 0}, 3);
  });
  EXPECT_NE(msg.find("halo width 3"), std::string::npos) << msg;
  EXPECT_NO_THROW(Decomposition(make_grid({3, 8, 1}, {false, false, false}), self, {0, 0, 0}, 3));
}

TEST(Impossible, ThrowsOnlyWhenNoSplitFitsTheHalo) {
  const Comm world;
  if (world.size() != 4) GTEST_SKIP() << "needs 4 ranks";
  // 2x2x1 (4x4x8 cells per rank) fits a halo of 3; 1x1x4 (8x8x2) does not.
  const Grid g = make_grid({8, 8, 8}, {false, false, false});
  EXPECT_EQ(error_of([&] { Decomposition(g, world, {0, 0, 0}, 3); }), "<no error>");
}

// ---- Neighbours -------------------------------------------------------------------------------

TEST(Neighbor, SingleRankWrapsOntoItselfOnlyAlongPeriodicAxes) {
  const Comm self(MPI_COMM_SELF);
  const Decomposition dec(make_grid({8, 8, 8}, {true, false, true}), self);
  EXPECT_EQ(dec.neighbor({0, 0, 0}), 0);
  EXPECT_EQ(dec.neighbor({1, 0, 0}), 0);
  EXPECT_EQ(dec.neighbor({-1, 0, 0}), 0);
  EXPECT_EQ(dec.neighbor({0, 0, -1}), 0);
  EXPECT_EQ(dec.neighbor({1, 0, 1}), 0);
  EXPECT_EQ(dec.neighbor({0, 1, 0}), MPI_PROC_NULL);
  EXPECT_EQ(dec.neighbor({0, -1, 0}), MPI_PROC_NULL);
  EXPECT_EQ(dec.neighbor({1, 1, 0}), MPI_PROC_NULL);
  EXPECT_EQ(dec.neighbor({-1, -1, -1}), MPI_PROC_NULL);
  EXPECT_TRUE(dec.at_low(0) && dec.at_high(0) && dec.at_low(2) && dec.at_high(2));
}

TEST(Neighbor, MatchesTheCoordinatesOfEveryRank) {
  const Comm world;
  const int p = world.size();
  for (const Grid& g :
       {make_grid({16, 16, 16}, {true, true, true}), make_grid({16, 16, 16}, {true, false, false}),
        make_grid({32, 16, 8}, {false, true, false}), make_grid({16, 16, 1}, {false, true, true}),
        make_grid({15, 13, 7}, {true, false, true})}) {
    const Decomposition dec(g, world);
    const Int3 d = dec.dims(), me = dec.coords();
    SCOPED_TRACE("grid " + str(g.n) + " dims " + str(d));
    std::vector<int> all(3 * p);
    const int mine[3] = {me.x, me.y, me.z};
    MPI_Allgather(mine, 3, MPI_INT, all.data(), 3, MPI_INT, world.get());
    std::map<std::array<int, 3>, int> rank_at;
    for (int r = 0; r < p; ++r) rank_at[{all[3 * r], all[3 * r + 1], all[3 * r + 2]}] = r;
    ASSERT_EQ(static_cast<int>(rank_at.size()), p) << "two ranks share coordinates";

    std::string errors;
    long long cells = dec.local_cells().volume();
    for (int a = 0; a < 3; ++a) {
      if (me[a] < 0 || me[a] >= d[a]) errors += "coords out of range; ";
      if (dec.offset()[a] != Decomposition::block_start(g.n[a], d[a], me[a]))
        errors += "offset is not the block's start; ";
      if (dec.at_low(a) != (me[a] == 0) || dec.at_high(a) != (me[a] == d[a] - 1))
        errors += "at_low/at_high wrong on axis " + std::to_string(a) + "; ";
    }
    for (int z = -1; z <= 1; ++z)
      for (int y = -1; y <= 1; ++y)
        for (int x = -1; x <= 1; ++x) {
          const Int3 dir{x, y, z};
          std::array<int, 3> c{};
          bool exists = true;
          for (int a = 0; a < 3; ++a) {
            c[a] = me[a] + dir[a];
            if (c[a] < 0 || c[a] >= d[a]) {
              if (!g.periodic[a] || !g.active(a)) exists = false;
              c[a] = (c[a] + d[a]) % d[a];
            }
          }
          const int expect = exists ? rank_at.at(c) : MPI_PROC_NULL;
          if (dec.neighbor(dir) != expect)
            errors += "neighbor(" + std::to_string(x) + "," + std::to_string(y) + "," +
                      std::to_string(z) + ") = " + std::to_string(dec.neighbor(dir)) +
                      ", expected " + std::to_string(expect) + "; ";
        }
    EXPECT_EQ(gather_text(world, errors), "");
    EXPECT_EQ(world.sum(cells), g.cells());
  }
}

// ---- Owned points ------------------------------------------------------------------------------

TEST(OwnedPoints, LastRankOwnsTheClosingFaceOfABoundedAxis) {
  const Comm world;
  const Location locs[] = {Location::cell,    Location::face_x,  Location::face_y,
                           Location::face_z,  Location::edge_xy, Location::edge_xz,
                           Location::edge_yz, Location::node};
  for (const Grid& g :
       {make_grid({16, 16, 16}, {false, false, false}),
        make_grid({16, 16, 16}, {true, false, true}), make_grid({32, 16, 1}, {false, true, false}),
        make_grid({13, 11, 7}, {false, true, false})}) {
    const Decomposition dec(g, world);
    SCOPED_TRACE("grid " + str(g.n) + " dims " + str(dec.dims()));
    std::string errors;
    for (Location loc : locs) {
      long long owned = 1, global = 1;
      for (int a = 0; a < 3; ++a) {
        const bool closing = staggered(loc, a) && g.active(a) && !g.periodic[a];
        const int expect = dec.local_cells()[a] + (closing && dec.at_high(a) ? 1 : 0);
        if (dec.owned_points(loc, a) != expect)
          errors += to_string(loc) + " axis " + std::to_string(a) + ": owns " +
                    std::to_string(dec.owned_points(loc, a)) + ", expected " +
                    std::to_string(expect) + "; ";
        if (g.points(loc, a) != g.n[a] + (closing ? 1 : 0))
          errors += to_string(loc) + " axis " + std::to_string(a) + ": grid points wrong; ";
        owned *= dec.owned_points(loc, a);
        global *= g.points(loc, a);
      }
      // Together the ranks own every point exactly once.
      if (world.sum(owned) != global) errors += to_string(loc) + ": owned points do not tile; ";
    }
    EXPECT_EQ(gather_text(world, errors), "");
  }
}

}  // namespace
}  // namespace staghorn

namespace staghorn {
namespace {

// Ranks take blocks in Morton order: on a 4x2 process grid rank 2 sits above rank 0, not beside 1.
TEST(Placement, MortonOrder) {
  const Comm world;
  if (world.size() != 8) GTEST_SKIP() << "needs 8 ranks";
  Grid g;
  g.n = {64, 32, 1};
  const Decomposition dec(g, world, {4, 2, 1});
  const Int3 expected[8] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0},
                            {2, 0, 0}, {3, 0, 0}, {2, 1, 0}, {3, 1, 0}};
  EXPECT_EQ(dec.coords(), expected[world.rank()]) << "rank " << world.rank();
}

}  // namespace
}  // namespace staghorn
