// core/vector_math.hpp against the C library: exp within one ulp and tanh within two of libm's over
// their whole range (random arguments, the thresholds, the subnormal results), the special values
// (infinities, NaN, signed zeros, overflow and underflow), the float exp against the double one,
// and the same bits from a vectorised loop as from scalar calls (a cell's result does not depend
// on its lane).
#include "core/vector_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace staghorn {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// |a - b| in units of the last place of b (of the smallest normal's where b is subnormal).
double ulps(double a, double b) {
  if (a == b) return 0;
  const double tiny = std::numeric_limits<double>::min();
  const int e = std::ilogb(std::fabs(b) > tiny ? b : tiny);
  return std::fabs(a - b) / std::ldexp(1.0, e - 52);
}

// Largest error in ulps of f against g over n arguments uniform in [lo, hi].
template <class F, class G>
double worst(F f, G g, double lo, double hi, int n) {
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u(lo, hi);
  double w = 0;
  for (int i = 0; i < n; ++i) {
    const double x = u(gen);
    w = std::fmax(w, ulps(f(x), g(x)));
  }
  return w;
}

TEST(VectorMath, ExpWithinAnUlpOfLibm) {
  auto f = [](double x) { return vmath::exp(x); };
  auto g = [](double x) { return std::exp(x); };
  const double ranges[][2] = {{-1, 1}, {-50, 50}, {-708, 709.78}, {-745, -708}, {-1e-8, 1e-8}};
  for (const auto& r : ranges) {
    const double w = worst(f, g, r[0], r[1], 200000);
    std::printf("exp on [%g, %g]: %.2f ulps at most\n", r[0], r[1], w);
    EXPECT_LE(w, 1.0) << r[0] << " " << r[1];  // subnormals: in ulps of the smallest normal
  }
}

// exp_normal: exp's bits from e^-708 (float: e^-86) on, e^-708 below, inf where exp is inf.
TEST(VectorMath, ExpNormalIsExpAboveTheSmallestNormal) {
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u(-708, 709.78);
  std::uniform_real_distribution<float> uf(-86, 88.7f);
  long long differ = 0;
  for (int i = 0; i < 200000; ++i) {
    const double x = u(gen);
    const float xf = uf(gen);
    differ += !same_bits(vmath::exp_normal(x), vmath::exp(x));
    differ += vmath::exp_normal(xf) != vmath::exp(xf);
  }
  EXPECT_EQ(differ, 0);
  for (const double x : {-708.0, -50.0, 0.0, 1.0, 709.0, 709.78})
    EXPECT_TRUE(same_bits(vmath::exp_normal(x), vmath::exp(x))) << x;
  EXPECT_TRUE(same_bits(vmath::exp_normal(-709.0), vmath::exp(-708.0)));
  EXPECT_TRUE(same_bits(vmath::exp_normal(-kInf), vmath::exp(-708.0)));
  EXPECT_TRUE(same_bits(vmath::exp_normal(709.79), kInf));
  EXPECT_TRUE(same_bits(vmath::exp_normal(kInf), kInf));
  EXPECT_TRUE(std::isnan(vmath::exp_normal(kNaN)));
  EXPECT_EQ(vmath::exp_normal(-100.0f), vmath::exp(-86.0f));
  EXPECT_EQ(vmath::exp_normal(89.0f), std::numeric_limits<float>::infinity());
  EXPECT_GE(vmath::exp_normal(-86.0f), std::numeric_limits<float>::min());
}

TEST(VectorMath, ExpSpecialValues) {
  EXPECT_TRUE(same_bits(vmath::exp(0.0), 1.0));
  EXPECT_TRUE(same_bits(vmath::exp(-0.0), 1.0));
  EXPECT_TRUE(same_bits(vmath::exp(kInf), kInf));
  EXPECT_TRUE(same_bits(vmath::exp(-kInf), 0.0));
  EXPECT_TRUE(std::isnan(vmath::exp(kNaN)));
  EXPECT_TRUE(same_bits(vmath::exp(709.79), kInf));
  EXPECT_TRUE(same_bits(vmath::exp(1e300), kInf));
  EXPECT_TRUE(same_bits(vmath::exp(-746.0), 0.0));
  EXPECT_TRUE(same_bits(vmath::exp(-1e300), 0.0));
  EXPECT_TRUE(std::isfinite(vmath::exp(709.78)));
  EXPECT_GT(vmath::exp(-744.0), 0.0);  // a subnormal
  EXPECT_LE(ulps(vmath::exp(1.0), 2.718281828459045), 1.0);
}

// The float exp against the double one (correct to far below a float ulp): within about one float
// ulp over the range where the result is a normal float, and the float ends of the range.
TEST(VectorMath, FloatExpWithinAFloatUlp) {
  float w = 0;
  for (float x = -87; x < 88.7f; x += 1e-3f) {
    const double exact = std::exp(static_cast<double>(x));
    const float ulp = std::ldexp(1.0f, std::ilogb(static_cast<float>(exact)) - 23);
    w = std::fmax(w, static_cast<float>(std::fabs(vmath::exp(x) - exact) / ulp));
  }
  std::printf("float exp on [-87, 88.7]: %.2f float ulps at most from the exact value\n", w);
  EXPECT_LE(w, 1.5f);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(vmath::exp(0.0f), 1.0f);
  EXPECT_EQ(vmath::exp(89.0f), inf);
  EXPECT_EQ(vmath::exp(inf), inf);
  EXPECT_EQ(vmath::exp(-inf), 0.0f);
  EXPECT_EQ(vmath::exp(-104.0f), 0.0f);
  EXPECT_GT(vmath::exp(-100.0f), 0.0f);  // a subnormal
  EXPECT_TRUE(std::isnan(vmath::exp(std::numeric_limits<float>::quiet_NaN())));
}

TEST(VectorMath, TanhWithinAFewUlpsOfLibm) {
  auto f = [](double x) { return vmath::tanh(x); };
  auto g = [](double x) { return std::tanh(x); };
  const double ranges[][2] = {{-0.7, 0.7}, {0.55, 0.7}, {-3, 3}, {-25, 25}, {-1e-6, 1e-6}};
  for (const auto& r : ranges) {
    const double w = worst(f, g, r[0], r[1], 200000);
    std::printf("tanh on [%g, %g]: %.2f ulps at most\n", r[0], r[1], w);
    EXPECT_LE(w, 2.0) << r[0] << " " << r[1];
  }
  float wf = 0;
  for (float x = -10; x < 10; x += 1e-3f)
    wf = std::fmax(wf, std::fabs(vmath::tanhf(x) - std::tanh(static_cast<double>(x))) /
                           std::ldexp(1.0f, std::ilogb(std::tanh(x)) - 23));
  std::printf("tanhf on [-10, 10]: %.2f float ulps at most from the exact value\n", wf);
  EXPECT_LE(wf, 0.51);  // the double rounded once: correctly rounded but for ties
}

TEST(VectorMath, TanhSpecialValues) {
  EXPECT_TRUE(same_bits(vmath::tanh(0.0), 0.0));
  EXPECT_TRUE(same_bits(vmath::tanh(-0.0), -0.0));
  EXPECT_TRUE(same_bits(vmath::tanh(kInf), 1.0));
  EXPECT_TRUE(same_bits(vmath::tanh(-kInf), -1.0));
  EXPECT_TRUE(same_bits(vmath::tanh(1e300), 1.0));
  EXPECT_TRUE(same_bits(vmath::tanh(-30.0), -1.0));
  EXPECT_TRUE(std::isnan(vmath::tanh(kNaN)));
  EXPECT_TRUE(same_bits(vmath::tanh(1e-300), 1e-300));
  EXPECT_TRUE(std::isnan(vmath::tanhf(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(vmath::tanhf(-std::numeric_limits<float>::infinity()), -1.0f);
}

// The arguments through a loop the compiler vectorises and one call at a time (through a volatile
// function pointer, which it cannot vectorise): the same bits.
TEST(VectorMath, VectorLanesGiveTheScalarBits) {
  std::mt19937_64 gen(9);
  std::uniform_real_distribution<double> u(-40, 40);
  std::vector<double> x(4099), e(x.size()), t(x.size());
  std::vector<float> ef(x.size());
  std::vector<double> en(x.size());
  for (double& v : x) v = u(gen);
#pragma omp simd
  for (std::size_t i = 0; i < x.size(); ++i) {
    e[i] = vmath::exp(x[i]);
    t[i] = vmath::tanh(x[i]);
    ef[i] = vmath::exp(static_cast<float>(x[i]));
    en[i] = vmath::exp_normal(x[i]);
  }
  double (*volatile exp1)(double) = [](double v) { return vmath::exp(v); };
  double (*volatile tanh1)(double) = [](double v) { return vmath::tanh(v); };
  float (*volatile expf1)(float) = [](float v) { return vmath::exp(v); };
  double (*volatile expn1)(double) = [](double v) { return vmath::exp_normal(v); };
  long long differ = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    differ += !same_bits(e[i], exp1(x[i])) + !same_bits(t[i], tanh1(x[i])) +
              !same_bits(ef[i], expf1(static_cast<float>(x[i]))) + !same_bits(en[i], expn1(x[i]));
  EXPECT_EQ(differ, 0);
}

}  // namespace
}  // namespace staghorn
