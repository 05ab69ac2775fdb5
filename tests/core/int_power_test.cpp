// core/int_power.hpp: x^m by binary powering against std::pow for every whole exponent it serves
// (0 <= m < 16), in double and in float: exact where the power is exact in the format (powers of
// two, small integers), elsewhere within (m + 4) rounding errors: the k-th square carries up to
// 2^k - 1 of them, and the product of the squares adds one per multiply.
#include "core/int_power.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace staghorn::test {
namespace {

template <class T>
void check_against_pow() {
  const T eps = std::numeric_limits<T>::epsilon();
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.25, 4.0);
  for (int m = 0; m < 16; ++m) {
    EXPECT_EQ(int_power(T(2), m), T(std::ldexp(1.0, m))) << "2^" << m;
    EXPECT_EQ(int_power(T(0.5), m), T(std::ldexp(1.0, -m))) << "0.5^" << m;
    EXPECT_EQ(int_power(T(3), m), T(std::pow(3.0, m))) << "3^" << m;  // exact below 2^24
    EXPECT_EQ(int_power(T(0), m), m == 0 ? T(1) : T(0)) << "0^" << m;
    for (int s = 0; s < 1000; ++s) {
      const T x = T(u(rng));
      const double want = std::pow(double(x), m);
      EXPECT_NEAR(double(int_power(x, m)), want, (m + 4) * double(eps) * want) << x << "^" << m;
    }
  }
}

TEST(IntPower, MatchesPowInDouble) { check_against_pow<double>(); }
TEST(IntPower, MatchesPowInFloat) { check_against_pow<float>(); }

}  // namespace
}  // namespace staghorn::test
