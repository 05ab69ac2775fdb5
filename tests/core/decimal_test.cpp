#include "core/decimal.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

namespace staghorn {
namespace {

TEST(Shortest, ReadsBackToTheSameDouble) {
  EXPECT_EQ(shortest(0.1), "0.1");
  EXPECT_EQ(shortest(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(shortest(-2.5), "-2.5");
  EXPECT_EQ(shortest(0.0), "0");
  EXPECT_EQ(shortest(std::numeric_limits<double>::infinity()), "inf");
  for (const double x : {1e-300, 6.02214076e23, 1.0 / 3.0, 2e-4, 123456789.125}) {
    EXPECT_EQ(std::strtod(shortest(x).c_str(), nullptr), x) << shortest(x);
  }
}

TEST(DecimalTime, IsTheNearestDoubleOfTheDecimalProduct) {
  // A running sum of 0.1 gives 0.30000000000000004 after three steps and 0.9999999999999999
  // after ten; the decimal product gives what a user typed.
  EXPECT_EQ(decimal_time(0, 3, 0.1), 0.3);
  EXPECT_EQ(decimal_time(0, 10, 0.1), 1.0);
  EXPECT_EQ(decimal_time(0, 20, 0.1), 2.0);
  EXPECT_EQ(decimal_time(0, 7, 2e-4), 0.0014);
  EXPECT_EQ(decimal_time(0, 1000000, 1e-3), 1000.0);
  EXPECT_EQ(decimal_time(1.5, 3, 0.25), 2.25);
  EXPECT_EQ(decimal_time(0, 0, 0.1), 0.0);
}

TEST(DecimalTime, ARestartContinuesTheTimesOfItsRun) {
  const double dt = 0.1;
  for (long long restart = 1; restart < 40; restart += 7)
    for (long long n = 0; n < 30; ++n)
      EXPECT_EQ(decimal_time(decimal_time(0, restart, dt), n, dt), decimal_time(0, restart + n, dt))
          << restart << " + " << n;
}

TEST(DecimalTime, FallsBackToDoublesWhereDecimalsWouldOverflow) {
  const double t = decimal_time(1e200, 3, 1e-200);  // 400 decimal digits apart
  EXPECT_EQ(t, 1e200);
  EXPECT_TRUE(std::isnan(decimal_time(std::nan(""), 1, 0.1)));
}

}  // namespace
}  // namespace staghorn
