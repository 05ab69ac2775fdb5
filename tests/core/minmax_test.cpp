// The kernels' host fmax and fmin (core/platform.hpp) against the C library's: the same value
// and sign for every pair whose second operand is not NaN (signed zeros, infinities, a NaN first
// operand), and NaN where the second is NaN (never hiding a NaN that fmax would show).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/platform.hpp"

namespace staghorn {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::vector<double> kValues = {0.0, -0.0, 1.0, -1.0, 1e-300, -2.5, 3e300, kInf, -kInf};

TEST(MinMax, MatchesLibmUnlessSecondIsNaN) {
  std::vector<double> firsts = kValues;
  firsts.push_back(kNaN);
  for (double a : firsts)
    for (double b : kValues) {
      EXPECT_TRUE(same_bits(fmax(a, b), std::fmax(a, b))) << "fmax(" << a << ", " << b << ")";
      EXPECT_TRUE(same_bits(fmin(a, b), std::fmin(a, b))) << "fmin(" << a << ", " << b << ")";
      const float fa = static_cast<float>(a), fb = static_cast<float>(b);
      EXPECT_TRUE(same_bits(fmax(fa, fb), std::fmax(fa, fb)))
          << "fmaxf(" << fa << ", " << fb << ")";
    }
}

TEST(MinMax, NaNSecondOperandPropagates) {
  for (double a : kValues) {
    EXPECT_TRUE(std::isnan(fmax(a, kNaN))) << a;
    EXPECT_TRUE(std::isnan(fmin(a, kNaN))) << a;
  }
}

}  // namespace
}  // namespace staghorn
