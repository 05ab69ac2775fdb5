// for_each and reduce on the cpu backend: every index of a region exactly once, reductions equal
// to a serial computation, NaN propagation, empty regions; for_each_regions' one launch over
// several regions (its kernel run position by position) and its CPU way.
#include "core/for_each.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/field.hpp"
#include "core/for_each_regions.hpp"

namespace staghorn {
namespace {

const Layout kLayout{{7, 5, 4}, {2, 2, 1}};

std::string str(const Region& r) {
  return "[" + std::to_string(r.lo.x) + "," + std::to_string(r.hi.x) + ")x[" +
         std::to_string(r.lo.y) + "," + std::to_string(r.hi.y) + ")x[" + std::to_string(r.lo.z) +
         "," + std::to_string(r.hi.z) + ")";
}

bool contains(const Region& r, int i, int j, int k) {
  return i >= r.lo.x && i < r.hi.x && j >= r.lo.y && j < r.hi.y && k >= r.lo.z && k < r.hi.z;
}

struct Increment {
  View f;
  SH_HD void operator()(int i, int j, int k) const { f(i, j, k) += 1; }
};

// A value that differs at every index and has no pattern a wrong index mapping could reproduce.
struct Hash {
  SH_HD real operator()(int i, int j, int k) const {
    const unsigned h = static_cast<unsigned>(i + 11) * 73856093u ^
                       static_cast<unsigned>(j + 13) * 19349663u ^
                       static_cast<unsigned>(k + 17) * 83492791u;
    return static_cast<real>(h % 100003) - 50000.0;  // integers: sums are exact
  }
};

struct MinusSum {
  SH_HD real operator()(int i, int j, int k) const { return -1.0 - i - j - k; }
};

struct One {
  SH_HD real operator()(int, int, int) const { return 1.0; }
};

struct Read {
  View f;
  SH_HD real operator()(int i, int j, int k) const { return f(i, j, k); }
};

const Region kRegions[] = {
    kLayout.interior(),        // the interior
    kLayout.all(),             // interior and halo
    {{-2, -1, 0}, {3, 5, 2}},  // reaches into the halo
    {{4, 0, 3}, {5, 1, 4}},    // one cell
    {{-2, 2, -1}, {9, 3, 5}},  // one row, whole padded x
    {{1, -2, 0}, {2, 7, 4}},   // one column along y
    {{0, 0, 0}, {7, 5, 1}},    // one plane
};

TEST(ForEach, VisitsEveryIndexOfTheRegionExactlyOnce) {
  const Exec ex = Exec::cpu();
  for (const Region& r : kRegions) {
    SCOPED_TRACE(str(r));
    Field f("count", Location::cell, kLayout, Backend::cpu);
    f.from_host(std::vector<real>(kLayout.count(), 0.0));
    for_each(ex, r, Increment{f.view()});
    for_each(ex, r, Lane::boundary, Increment{f.view()});  // both lanes run on the cpu

    const std::vector<real> v = f.to_host();
    const Region all = kLayout.all();
    int wrong = 0;
    for (int k = all.lo.z; k < all.hi.z; ++k)
      for (int j = all.lo.y; j < all.hi.y; ++j)
        for (int i = all.lo.x; i < all.hi.x; ++i) {
          const real want = contains(r, i, j, k) ? 2.0 : 0.0;
          const real got = v[kLayout.index(i, j, k)];
          if (got != want && wrong++ < 5)
            ADD_FAILURE() << "(" << i << "," << j << "," << k << ") counted " << got
                          << ", expected " << want << " (two passes)";
        }
    EXPECT_EQ(wrong, 0);
  }
}

TEST(ForEach, EmptyRegionsAreNoOps) {
  const Exec ex = Exec::cpu();
  Field f("f", Location::cell, kLayout, Backend::cpu);
  const std::vector<real> init(kLayout.count(), 3.0);
  f.from_host(init);
  const Region empties[] = {
      {{0, 0, 0}, {0, 5, 4}}, {{0, 0, 0}, {7, 0, 4}}, {{0, 0, 0}, {7, 5, 0}},
      {{3, 0, 0}, {1, 5, 4}},  // hi < lo on one axis, positive extents elsewhere
      {{5, 4, 3}, {2, 1, 0}},  // hi < lo on every axis (a naive product would be negative)
      {{4, 3, 0}, {2, 1, 4}},  // two negative extents (a naive product would be positive)
  };
  for (const Region& r : empties) {
    SCOPED_TRACE(str(r));
    EXPECT_TRUE(r.empty());
    EXPECT_EQ(r.size(), 0);
    for_each(ex, r, Increment{f.view()});
    for_each(ex, r, Lane::boundary, Increment{f.view()});
    EXPECT_EQ(reduce(ex, r, SumOp{}, Hash{}), 0.0);
    EXPECT_EQ(reduce(ex, r, MaxOp{}, Hash{}), -std::numeric_limits<real>::infinity());
  }
  EXPECT_EQ(f.to_host(), init);
}

// Counts each call per region and cell, inside a box that holds every region of the test.
constexpr Region kBox{{-3, -1, -2}, {40, 30, 4}};
constexpr long long kBoxCells = kBox.size();
SH_HD long long box_index(int s, int i, int j, int k) {
  const Int3 e = kBox.extent();
  return s * kBoxCells + (i - kBox.lo.x) +
         e.x * ((j - kBox.lo.y) + (long long)e.y * (k - kBox.lo.z));
}
// Run on the host only (the test's CPU threads); host and device code since the regions' kernel is.
struct Count {
  std::atomic<int>* visits;
  SH_HD void operator()(int s, int i, int j, int k) const {
#if !defined(__CUDA_ARCH__)
    visits[box_index(s, i, j, k)].fetch_add(1);
#endif
  }
};

// What is wrong with the visits (empty if each cell of region s was visited once as s).
std::string check_visits(const std::array<Region, 5>& regions, const std::atomic<int>* visits) {
  int wrong = 0;
  for (int s = 0; s < 5; ++s)
    for (int k = kBox.lo.z; k < kBox.hi.z; ++k)
      for (int j = kBox.lo.y; j < kBox.hi.y; ++j)
        for (int i = kBox.lo.x; i < kBox.hi.x; ++i) {
          wrong += visits[box_index(s, i, j, k)].load() != (contains(regions[s], i, j, k) ? 1 : 0);
        }
  return wrong == 0 ? "" : std::to_string(wrong) + " cells visited otherwise than once";
}

TEST(ForEachRegions, OneLaunchVisitsEveryCellOfEveryRegionOnce) {
  // Thin slabs, an empty region, one past several launch rows, negative indices and an overlap
  // (visited once per region): the GPU's one launch, run position by position, and the CPU's way.
  const std::array<Region, 5> regions = {
      Region{{-2, -1, 0}, {5, 1, 3}}, Region{{0, 0, 0}, {0, 4, 4}},
      Region{{-3, 2, -2}, {40, 30, 1}}, Region{{1, 0, 1}, {2, 1, 2}}, Region{{0, 0, 0}, {3, 1, 3}}};
  std::vector<std::atomic<int>> launch_visits(5 * kBoxCells), cpu_visits(5 * kBoxCells);
  const auto k = detail::regions_kernel(regions, Count{launch_visits.data()});
  const Region launch = detail::launch_of(k);
  ASSERT_GT(launch.hi.y, 1);  // the long region spans several rows of the launch
  for (int y = launch.lo.y; y < launch.hi.y; ++y)
    for (int x = launch.lo.x; x < launch.hi.x; ++x) k(x, y, 0);
  EXPECT_EQ(check_visits(regions, launch_visits.data()), "");
  for_each_regions<5>(Exec::cpu(), regions, Lane::inner, Count{cpu_visits.data()});
  EXPECT_EQ(check_visits(regions, cpu_visits.data()), "");
}

TEST(Reduce, MatchesASerialComputation) {
  const Exec ex = Exec::cpu();
  for (const Region& r : kRegions) {
    SCOPED_TRACE(str(r));
    real sum = 0, max = -std::numeric_limits<real>::infinity();
    for (int k = r.lo.z; k < r.hi.z; ++k)
      for (int j = r.lo.y; j < r.hi.y; ++j)
        for (int i = r.lo.x; i < r.hi.x; ++i) {
          sum += Hash{}(i, j, k);
          max = std::max(max, Hash{}(i, j, k));
        }
    EXPECT_EQ(reduce(ex, r, SumOp{}, Hash{}), sum);
    EXPECT_EQ(reduce(ex, r, MaxOp{}, Hash{}), max);
  }
  // All negative: the maximum is not the identity's or zero.
  const Region r = kLayout.interior();
  EXPECT_EQ(reduce(ex, r, MaxOp{}, MinusSum{}), -1.0);
  EXPECT_EQ(reduce(ex, r, SumOp{}, One{}), static_cast<real>(r.size()));
}

TEST(Reduce, MaxPropagatesNaN) {
  const Exec ex = Exec::cpu();
  const Region r = kLayout.all();
  const Region all = kLayout.all();
  // NaN at the first and last visited index, in the middle, and inside a halo.
  const Int3 spots[] = {all.lo, {all.hi.x - 1, all.hi.y - 1, all.hi.z - 1}, {3, 2, 2}, {-1, 6, 0}};
  for (Int3 s : spots) {
    SCOPED_TRACE("NaN at (" + std::to_string(s.x) + "," + std::to_string(s.y) + "," +
                 std::to_string(s.z) + ")");
    Field f("f", Location::cell, kLayout, Backend::cpu);
    std::vector<real> v(kLayout.count());
    for (std::size_t n = 0; n < v.size(); ++n) v[n] = static_cast<real>(n % 97);
    v[kLayout.index(s.x, s.y, s.z)] = std::numeric_limits<real>::quiet_NaN();
    f.from_host(v);
    EXPECT_TRUE(std::isnan(reduce(ex, r, MaxOp{}, Read{f.view()})));
    EXPECT_TRUE(std::isnan(reduce(ex, r, SumOp{}, Read{f.view()})));
  }
  // The operator itself, in both argument orders and against infinities.
  const real nan = std::numeric_limits<real>::quiet_NaN();
  const real inf = std::numeric_limits<real>::infinity();
  EXPECT_TRUE(std::isnan(MaxOp{}(nan, real(1))));
  EXPECT_TRUE(std::isnan(MaxOp{}(real(1), nan)));
  EXPECT_TRUE(std::isnan(MaxOp{}(nan, inf)));
  EXPECT_TRUE(std::isnan(MaxOp{}(-inf, nan)));
  EXPECT_EQ(MaxOp{}(real(2), real(-3)), 2);
  EXPECT_EQ(MaxOp{}(real(-3), real(2)), 2);
  const real lowest = std::numeric_limits<real>::lowest();
  EXPECT_EQ(MaxOp{}(MaxOp::identity(), lowest), lowest);
}

}  // namespace
}  // namespace staghorn
