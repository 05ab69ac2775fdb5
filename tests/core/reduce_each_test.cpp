// reduce_each: N reductions in one pass equal N separate serial reductions, on every backend
// here (the GPU when one is visible), for regions of every shape; NaN propagates through Max;
// an empty region gives the identity.
#include "core/reduce_each.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "test_support.hpp"

namespace staghorn {
namespace {

// Three components with no pattern a wrong index mapping could reproduce; integers, so sums are
// exact in any order and every backend must agree to the bit.
struct Three {
  SH_HD Terms<3> operator()(int i, int j, int k) const {
    const unsigned h = static_cast<unsigned>(i + 11) * 73856093u ^
                       static_cast<unsigned>(j + 13) * 19349663u ^
                       static_cast<unsigned>(k + 17) * 83492791u;
    return {{static_cast<real>(h % 1009) - 500, static_cast<real>(-1 - i - 2 * j - 3 * k),
             static_cast<real>((h >> 7) % 31)}};
  }
};

struct NanAt {
  Int3 at;
  SH_HD Terms<2> operator()(int i, int j, int k) const {
    const bool here = i == at.x && j == at.y && k == at.z;
    return {{here ? std::numeric_limits<real>::quiet_NaN() : real(i), real(j)}};
  }
};

std::array<double, 3> serial(const Region& r, bool max) {
  std::array<double, 3> t;
  t.fill(max ? -std::numeric_limits<double>::infinity() : 0.0);
  test::for_cells(r, [&](int i, int j, int k) {
    const Terms<3> v = Three{}(i, j, k);
    for (int n = 0; n < 3; ++n) t[n] = max ? std::fmax(t[n], v.v[n]) : t[n] + v.v[n];
  });
  return t;
}

using test::backends;

TEST(ReduceEach, EqualsSeparateSerialReductionsOnEveryBackend) {
  for (const Exec& ex : backends())
    for (const Region& r : test::reduction_regions()) {
      SCOPED_TRACE(ex.description());
      const std::array<double, 3> sum = reduce_each<3>(ex, r, SumOp{}, Three{});
      const std::array<double, 3> max = reduce_each<3>(ex, r, MaxOp{}, Three{});
      const std::array<double, 3> want_sum = serial(r, false), want_max = serial(r, true);
      for (int n = 0; n < 3; ++n) {
        EXPECT_EQ(sum[n], want_sum[n]) << "component " << n;
        EXPECT_EQ(max[n], want_max[n]) << "component " << n;
      }
    }
}

TEST(ReduceEach, MaxPropagatesNanInItsComponentOnly) {
  for (const Exec& ex : backends()) {
    SCOPED_TRACE(ex.description());
    const std::array<double, 2> m =
        reduce_each<2>(ex, Region{{0, 0, 0}, {40, 20, 3}}, MaxOp{}, NanAt{{17, 11, 2}});
    EXPECT_TRUE(std::isnan(m[0]));
    EXPECT_EQ(m[1], 19.0);
  }
}

TEST(ReduceEach, EmptyRegionGivesTheIdentity) {
  for (const Exec& ex : backends()) {
    const std::array<double, 3> s =
        reduce_each<3>(ex, Region{{0, 0, 0}, {0, 4, 4}}, SumOp{}, Three{});
    for (double v : s) EXPECT_EQ(v, 0.0);
  }
}

}  // namespace
}  // namespace staghorn
