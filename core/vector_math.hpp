#pragma once
// exp and tanh that the CPU's row loops vectorise. libm's are calls, and a loop with a call stays
// scalar (one cell at a time, every other operation of the cell included); these are arithmetic
// and selects only, inlined, so a row of cells runs as vectors. They give the same bits in every
// lane, in a loop's scalar remainder and on any instruction set (no FMA contraction: CMakeLists),
// so a cell's result does not depend on where a row or a rank's block begins. Accuracy: exp within
// one ulp of libm's, tanh within two, the float exp within about one float ulp
// (tests/core/vector_math_test.cpp), so results change from libm's within rounding. On the GPU they
// are CUDA's own functions.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/exp_series.hpp"
#include "core/platform.hpp"

namespace staghorn::vmath {

namespace detail {

inline std::int64_t bits(double x) {
  std::int64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
inline double from_bits(std::int64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// 1.5 * 2^52: adding it to a double of magnitude below 2^51 rounds it to an integer, held in the
// low bits of the sum's significand (round to nearest even, in any vector lane).
constexpr double kShift = 6755399441055744.0;

// 2^n for a whole number n in [-1022, 1023] held as a double: the exponent field built directly.
inline double pow2(double n) {
  const std::int64_t i = bits(n + kShift) - bits(kShift);
  return from_bits((i + 1023) << 52);
}

inline double exp_host(double x) {
  // x = n ln2 + r with |r| <= ln2 / 2 (Cody and Waite: ln2 in two parts, the first with zeros in
  // its low bits, so that n ln2_hi is exact), e^x = 2^n e^r.
  constexpr double kLog2e = 1.4426950408889634074;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  // Beyond these e^x is inf or rounds to 0; NaN passes through (both comparisons are false).
  const double xc = x > 709.8 ? 709.8 : x < -746.0 ? -746.0 : x;
  const double n = (xc * kLog2e + kShift) - kShift;
  const double r = (xc - n * kLn2Hi) - n * kLn2Lo;
  // e^r = 1 + r + r^2 p(r) (core/exp_series.hpp), separately rounded multiply-adds.
  double p = exp_series_tail(r, [](double a, double b, double c) { return a * b + c; });
  p = 1.0 + (r + r * r * p);
  // 2^n as two factors, each a normal double for n in [-1076, 1024]: the product rounds once,
  // into the subnormals or to inf where e^x does.
  const double n1 = (n * 0.5 + kShift) - kShift;
  return p * pow2(n1) * pow2(n - n1);
}

// tanh(|x|) / |x| - 1 over u = x^2 for |x| < 0.625 (a Chebyshev fit of degree 11 in u, error below
// 4e-18): tanh x = x + x u q(u).
inline double tanh_small(double x) {
  const double u = x * x;
  double q = 6.485163482793113e-06;
  q = q * u - 3.12011014257974e-05;
  q = q * u + 9.257116129556769e-05;
  q = q * u - 0.0002375906496055562;
  q = q * u + 0.0005896606577757043;
  q = q * u - 0.0014557754120478055;
  q = q * u + 0.0035921217511549622;
  q = q * u - 0.008863235103240878;
  q = q * u + 0.021869488519008305;
  q = q * u - 0.05396825396789699;
  q = q * u + 0.13333333333333042;
  q = q * u - 0.3333333333333333;
  return x + x * (u * q);
}

// The same for float: its bits as a 32-bit integer, and 1.5 * 2^23 (rounds to an integer below
// 2^22 in magnitude).
inline std::uint32_t bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
inline float from_bits(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}
constexpr float kShiftF = 12582912.0f;

// 2^n for a whole number n in [-126, 127] held as a float.
inline float pow2(float n) {
  const std::uint32_t i = bits(n + kShiftF) - bits(kShiftF);
  return from_bits((i + 127u) << 23);
}

// e^x in single precision, as exp_host: x = n ln2 + r, e^r by Cephes' expf polynomial (degree 5
// in r for e^r - 1 - r; within about one float ulp), 2^n as two factors.
inline float expf_host(float x) {
  constexpr float kLog2e = 1.44269504f;
  constexpr float kLn2Hi = 0.693359375f;  // 9 significant bits: n ln2_hi is exact
  constexpr float kLn2Lo = -2.12194440e-4f;
  // Beyond these e^x is inf or rounds to 0; NaN passes through.
  const float xc = x > 89.0f ? 89.0f : x < -104.0f ? -104.0f : x;
  const float n = (xc * kLog2e + kShiftF) - kShiftF;
  const float r = (xc - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = 1.0f + (r + r * r * p);
  const float n1 = (n * 0.5f + kShiftF) - kShiftF;
  return p * pow2(n1) * pow2(n - n1);
}

inline double tanh_host(double x) {
  const double a = std::fabs(x);
  // 1 - 2 / (e^2a + 1): no cancellation from 0.625 on (tanh > 0.55); 1 for large a (e^2a = inf).
  const double large = 1.0 - 2.0 / (exp_host(2.0 * a) + 1.0);
  return std::copysign(a < 0.625 ? tanh_small(a) : large, x);
}

}  // namespace detail

SH_HD inline double exp(double x) {
#if defined(__CUDA_ARCH__)
  return ::exp(x);
#else
  return detail::exp_host(x);
#endif
}

// Single precision (for quantities the kernels already compute in float, such as pseudo-steps).
SH_HD inline float exp(float x) {
#if defined(__CUDA_ARCH__)
  return ::expf(x);
#else
  return detail::expf_host(x);
#endif
}

SH_HD inline double tanh(double x) {
#if defined(__CUDA_ARCH__)
  return ::tanh(x);
#else
  return detail::tanh_host(x);
#endif
}

// Single precision: the double tanh rounded to float (no float variant of its own to maintain).
SH_HD inline float tanhf(float x) {
#if defined(__CUDA_ARCH__)
  return ::tanhf(x);
#else
  return static_cast<float>(detail::tanh_host(x));
#endif
}

}  // namespace staghorn::vmath
