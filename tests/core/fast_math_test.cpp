// core/fast_math.hpp on random arguments: divide(a, b) equals a / b to the bit (operands and
// quotients from 1e-250 to 1e250), exp_expm1(y) stays within a few ulps of the library's exp and
// expm1 (measured on an H100: 1 and 2 ulps at most over 16.8 M arguments). On the host the
// functions are the plain expressions; on a GPU the device code is compared with the device library
// (skipped without one).
#include "core/fast_math.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "core/backend.hpp"

namespace staghorn::test {
namespace {

constexpr int kSamples = 1 << 20;

struct Args {
  std::vector<double> a, b, y;
};

// Quotient operands over 500 decades with random signs; exponent arguments in [-50, 50] (the
// porosity law's range) and tiny ones.
Args random_args() {
  std::mt19937_64 gen(19);
  std::uniform_real_distribution<double> u(0, 1);
  Args r;
  for (int i = 0; i < kSamples; ++i) {
    r.a.push_back((u(gen) - 0.5) * std::pow(10.0, 500 * u(gen) - 250));
    r.b.push_back((u(gen) - 0.5) * std::pow(10.0, 500 * u(gen) - 250));
    const double tiny = (u(gen) - 0.5) * std::pow(10.0, -12 * u(gen));
    r.y.push_back(i % 2 ? 100 * u(gen) - 50 : tiny);
  }
  return r;
}

std::int64_t ulps(double p, double q) {
  std::int64_t x, y;
  std::memcpy(&x, &p, 8);
  std::memcpy(&y, &q, 8);
  return x > y ? x - y : y - x;
}

bool in_range(double q) { return std::fabs(q) < 1e250 && std::fabs(q) > 1e-250; }

TEST(FastMath, HostFunctionsAreThePlainExpressions) {
  const Args r = random_args();
  for (int i = 0; i < 1000; ++i) {
    EXPECT_EQ(divide(r.a[i], r.b[i]), r.a[i] / r.b[i]);
    EXPECT_EQ(exp_expm1(r.y[i]).exp, std::exp(r.y[i]));
    EXPECT_EQ(exp_expm1(r.y[i]).expm1, std::expm1(r.y[i]));
  }
}

#if defined(__CUDACC__)
// out: per sample the fast function's value and the library's, four pairs.
__global__ void evaluate(int n, const double* a, const double* b, const double* y, double* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const ExpPair e = exp_expm1(y[i]);
  const double v[8] = {divide(a[i], b[i]), a[i] / b[i], divide(1.0, b[i]), 1.0 / b[i], e.exp,
                       exp(y[i]),          e.expm1,     expm1(y[i])};
  for (int c = 0; c < 8; ++c) out[8 * std::size_t(i) + c] = v[c];
}

TEST(FastMath, DeviceFunctionsMatchTheLibrary) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  if (!std::is_same_v<real, double>) GTEST_SKIP() << "double precision only";
  const Args r = random_args();
  const std::size_t bytes = kSamples * sizeof(double);
  double *a, *b, *y, *out;
  ASSERT_EQ(cudaMalloc(&a, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&y, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&out, 8 * bytes), cudaSuccess);
  cudaMemcpy(a, r.a.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(b, r.b.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(y, r.y.data(), bytes, cudaMemcpyHostToDevice);
  evaluate<<<kSamples / 256, 256>>>(kSamples, a, b, y, out);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<double> v(8 * std::size_t(kSamples));
  ASSERT_EQ(cudaMemcpy(v.data(), out, 8 * bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  for (double* p : {a, b, y, out}) cudaFree(p);
  std::int64_t different = 0, worst[2] = {0, 0};
  for (int i = 0; i < kSamples; ++i) {
    const double* s = &v[8 * std::size_t(i)];
    for (int c = 0; c < 2; ++c)
      if (in_range(s[2 * c + 1]) && s[2 * c] != s[2 * c + 1]) ++different;
    for (int c = 0; c < 2; ++c) worst[c] = std::max(worst[c], ulps(s[4 + 2 * c], s[5 + 2 * c]));
  }
  std::printf("divide != a / b: %lld; worst ulps: exp %lld, expm1 %lld\n",
              static_cast<long long>(different), static_cast<long long>(worst[0]),
              static_cast<long long>(worst[1]));
  EXPECT_EQ(different, 0);
  EXPECT_LE(worst[0], 1);
  EXPECT_LE(worst[1], 2);
}
#endif

}  // namespace
}  // namespace staghorn::test
