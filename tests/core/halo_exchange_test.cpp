// HaloExchange: every halo cell with an owner (a neighbouring rank or a periodic wrap) receives
// the owner's value; every halo cell without one is left alone.
#include "core/halo_exchange.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/decomposition.hpp"
#include "core/field.hpp"
#include "test_support.hpp"

namespace staghorn {
namespace {

using test::error_of;
using test::gather_text;

const real kNaN = std::numeric_limits<real>::quiet_NaN();

// A value unique to field f at global cell g (exact in double for the small grids used here).
real unique_value(int f, Int3 g) { return 1 + f + 10.0 * (g.x + 100.0 * (g.y + 100.0 * g.z)); }

// A process grid of `ranks` (1, 2, 4, 8), as even as possible; 2-D grids are not split along z.
Int3 process_grid(int ranks, bool flat) {
  switch (ranks) {
    case 1:
      return {1, 1, 1};
    case 2:
      return {2, 1, 1};
    case 4:
      return {2, 2, 1};
    case 8:
      return flat ? Int3{4, 2, 1} : Int3{2, 2, 2};
  }
  return {ranks, 1, 1};
}

struct Case {
  const char* name;
  Int3 local;  // cells per rank
  std::array<bool, 3> periodic;
};

// Runs the exchange for one case and returns every wrong halo or interior cell (empty if none).
// `filled`: axes whose self-periodic halo the exchange leaves to the caller (on `dims` given as a
// process grid that holds them on one rank).
std::string run_case(const Case& c, int halo, bool corners, Int3 filled = {0, 0, 0},
                     Int3 dims = {0, 0, 0}) {
  const Comm world;
  const bool flat = c.local.z == 1;
  if (dims == Int3{0, 0, 0}) dims = process_grid(world.size(), flat);
  Grid grid;
  grid.n = {c.local.x * dims.x, c.local.y * dims.y, c.local.z * dims.z};
  grid.periodic = c.periodic;
  const Decomposition dec(grid, world, dims, halo);
  const Layout layout{dec.local_cells(), {dec.halo(0), dec.halo(1), dec.halo(2)}};
  const Exec ex = Exec::cpu();

  const Location locs[] = {Location::cell, Location::face_x, Location::node};
  std::vector<std::unique_ptr<Field>> fields;
  for (int f = 0; f < 3; ++f) {
    fields.push_back(
        std::make_unique<Field>("f" + std::to_string(f), locs[f], layout, Backend::cpu));
    std::vector<real> v(layout.count(), kNaN);
    for (int k = 0; k < layout.n.z; ++k)
      for (int j = 0; j < layout.n.y; ++j)
        for (int i = 0; i < layout.n.x; ++i)
          v[layout.index(i, j, k)] =
              unique_value(f, {dec.offset().x + i, dec.offset().y + j, dec.offset().z + k});
    fields.back()->from_host(v);
  }

  HaloExchange hx(dec, layout, ex, corners, filled);
  // First one field, then all three (the buffers grow), then all again (the buffers are reused).
  hx.exchange({fields[0].get()});
  std::vector<Field*> all;
  for (auto& f : fields) all.push_back(f.get());
  hx.exchange(all);
  hx.exchange(all);
  ex.synchronize();

  std::string errors;
  int shown = 0;
  long long wrong = 0;
  const Region r = layout.all();
  for (int f = 0; f < 3; ++f) {
    const std::vector<real> v = fields[f]->to_host();
    for (int k = r.lo.z; k < r.hi.z; ++k)
      for (int j = r.lo.y; j < r.hi.y; ++j)
        for (int i = r.lo.x; i < r.hi.x; ++i) {
          const Int3 loc{i, j, k};
          Int3 g;
          int outside = 0, outside_unfilled = 0;
          bool owned = true;
          for (int a = 0; a < 3; ++a) {
            g[a] = dec.offset()[a] + loc[a];
            if (loc[a] >= 0 && loc[a] < layout.n[a]) continue;
            ++outside;
            if (!filled[a]) ++outside_unfilled;
            if (g[a] < 0 || g[a] >= grid.n[a]) {
              if (grid.periodic[a])
                g[a] = (g[a] + grid.n[a]) % grid.n[a];
              else
                owned = false;
            }
          }
          if (!corners && outside > 1) owned = false;
          if (outside > 0 && outside_unfilled == 0) owned = false;  // the caller's to fill
          const real got = v[layout.index(i, j, k)];
          const bool ok = owned ? got == unique_value(f, g) : std::isnan(got);
          if (ok) continue;
          ++wrong;
          if (shown++ < 5)
            errors += "field " + std::to_string(f) + " at (" + std::to_string(i) + "," +
                      std::to_string(j) + "," + std::to_string(k) + "): got " +
                      std::to_string(got) + ", expected " +
                      (owned ? std::to_string(unique_value(f, g)) : std::string("NaN")) + "; ";
        }
  }
  if (wrong > 0) errors += std::to_string(wrong) + " wrong cells\n";
  return gather_text(world, errors);
}

class HaloExchangeTest : public ::testing::TestWithParam<std::tuple<int, int, bool>> {};

const Case kCases[] = {
    {"3-D periodic", {6, 5, 4}, {true, true, true}},
    {"3-D mixed", {6, 5, 4}, {true, false, true}},
    {"3-D mixed, x bounded", {4, 6, 5}, {false, true, false}},
    {"3-D bounded", {4, 4, 4}, {false, false, false}},
    {"2-D", {6, 5, 1}, {false, true, true}},
    {"2-D periodic", {5, 6, 1}, {true, true, false}},
};

TEST_P(HaloExchangeTest, FillsEveryHaloCellThatHasAnOwner) {
  const auto [which, halo, corners] = GetParam();
  const Case& c = kCases[which];
  SCOPED_TRACE(std::string(c.name) + ", halo " + std::to_string(halo) +
               (corners ? ", corners" : ", sides only"));
  EXPECT_EQ(run_case(c, halo, corners), "");
}

INSTANTIATE_TEST_SUITE_P(AllCases, HaloExchangeTest,
                         ::testing::Combine(::testing::Range(0, 6), ::testing::Values(1, 2),
                                            ::testing::Bool()));

// A z split with x and y periodic on each rank, x and y filled by the caller (as the MHD kernels
// write periodic images): the exchange leaves the halo that lies outside along x or y alone and
// fills everything outside along z, its edges and corners with x and y included.
TEST(HaloExchangeFilled, LeavesTheFilledAxesAndFillsWhatCrossesTheOthers) {
  const Comm world;
  const Case c{"3-D periodic, z split", {6, 5, 4}, {true, true, true}};
  const Int3 dims{1, 1, world.size()};
  EXPECT_EQ(run_case(c, 2, true, {6, 5, 0}, dims), "");
  EXPECT_EQ(run_case(c, 1, true, {6, 0, 0}, dims), "");
  Grid grid;
  grid.n = {6, 5, 4 * world.size()};
  grid.periodic = {true, true, true};
  const Decomposition dec(grid, world, dims, 2);
  const Layout l{dec.local_cells(), {2, 2, 2}};
  const HaloExchange hx(dec, l, Exec::cpu(), true, {6, 5, 0});
  EXPECT_EQ(hx.segments(), 18);                // the 9 of each z side
  EXPECT_EQ(hx.axes(), (Int3{0, 0, 1}));       // a shell along z alone holds what they send
  EXPECT_EQ(hx.remote(), world.size() > 1);
  // An axis split over ranks cannot be the caller's to fill.
  if (world.size() > 1) EXPECT_THROW(HaloExchange(dec, l, Exec::cpu(), true, {0, 0, 4}),
                                     std::logic_error);
}

TEST(HaloExchangeSegments, CountsSidesEdgesAndCorners) {
  const Comm self(MPI_COMM_SELF);
  Grid g;
  g.n = {8, 8, 8};
  g.periodic = {true, true, true};
  const Decomposition dec(g, self);
  const Layout l{dec.local_cells(), {1, 1, 1}};
  EXPECT_EQ(HaloExchange(dec, l, Exec::cpu(), true).segments(), 26);
  EXPECT_EQ(HaloExchange(dec, l, Exec::cpu(), false).segments(), 6);
  // 2-D: 4 sides and 4 corners in the xy plane.
  g.n = {8, 8, 1};
  const Decomposition flat(g, self);
  const Layout lf{flat.local_cells(), {1, 1, 0}};
  EXPECT_EQ(HaloExchange(flat, lf, Exec::cpu(), true).segments(), 8);
  EXPECT_EQ(HaloExchange(flat, lf, Exec::cpu(), false).segments(), 4);
  // Bounded on one rank: nothing to exchange.
  g.n = {8, 8, 8};
  g.periodic = {false, false, false};
  const Decomposition closed(g, self);
  EXPECT_EQ(HaloExchange(closed, l, Exec::cpu(), true).segments(), 0);
}

TEST(HaloExchangeSegments, RegionsAreSlabsOfTheHaloWidth) {
  const Layout l{{6, 5, 4}, {2, 2, 2}};
  const Region s = HaloExchange::send_region(l, {1, 0, -1});
  EXPECT_EQ(s.lo, (Int3{4, 0, 0}));
  EXPECT_EQ(s.hi, (Int3{6, 5, 2}));
  const Region r = HaloExchange::recv_region(l, {1, 0, -1});
  EXPECT_EQ(r.lo, (Int3{6, 0, -2}));
  EXPECT_EQ(r.hi, (Int3{8, 5, 0}));
}

}  // namespace
}  // namespace staghorn
