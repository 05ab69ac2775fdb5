#pragma once
// exp and tanh that the CPU's row loops vectorise. libm's are calls, and a loop with a call stays
// scalar (one cell at a time, every other operation of the cell included); these are arithmetic
// and selects only, inlined, so a row of cells runs as vectors. They give the same bits in every
// lane, in a loop's scalar remainder and on any instruction set the build runs on (no FMA
// contraction, CMakeLists; the multiply-adds below are fused explicitly, see madd), so a cell's
// result does not depend on where a row or a rank's block begins. Accuracy: exp within
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

// a b + c, fused where the build's baseline has FMA (x86-64-v3, the default; every clone of a row
// loop then fuses too: the same bits in every lane and clone), else separately rounded. Fused, a
// multiply-add is one instruction and one rounding instead of two of each: the exp's series and
// reduction are chains of them, and the row loops that call exp are bound by such chains.
template <class T>
inline T madd(T a, T b, T c) {
#if defined(__FMA__) || defined(__aarch64__)
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}

// What exp_host needs of a floating type: the unsigned integer of its size, the width of its
// significand and its exponent bias, 1.5 * 2^digits (adding it to a value of magnitude below
// 2^(digits - 1) rounds it to an integer, held in the low bits of the sum's significand: round to
// nearest even, in any vector lane), the Cody and Waite split of ln2 (the first part with zeros
// in its low bits, so that n ln2_hi is exact), the arguments beyond which e^x is inf or rounds to
// 0, the smallest whose e^x is normal (about), and tail(r) = (e^r - 1 - r) / r^2 for |r| <= ln2 / 2
// (separately rounded multiply-adds).
template <class T>
struct ExpTraits;

template <>
struct ExpTraits<double> {
  using Bits = std::uint64_t;
  static constexpr int kSignificand = 52, kBias = 1023;
  static constexpr double kShift = 6755399441055744.0;
  static constexpr double kLog2e = 1.4426950408889634074;
  static constexpr double kLn2Hi = 6.93147180369123816490e-01;
  static constexpr double kLn2Lo = 1.90821492927058770002e-10;
  static constexpr double kMax = 709.8, kMin = -746.0, kMinNormal = -708.0;
  // Taylor to degree 13 (core/exp_series.hpp) by Estrin's scheme: within an ulp of libm's exp.
  static double tail(double r) {
    return exp_series_tail_estrin(r, [](double a, double b, double c) { return madd(a, b, c); });
  }
};

template <>
struct ExpTraits<float> {
  using Bits = std::uint32_t;
  static constexpr int kSignificand = 23, kBias = 127;
  static constexpr float kShift = 12582912.0f;
  static constexpr float kLog2e = 1.44269504f;
  static constexpr float kLn2Hi = 0.693359375f;
  static constexpr float kLn2Lo = -2.12194440e-4f;
  static constexpr float kMax = 89.0f, kMin = -104.0f, kMinNormal = -86.0f;
  // Cephes' expf polynomial (degree 5): within about one float ulp.
  static float tail(float r) {
    float p = 1.9875691500e-4f;
    p = madd(p, r, 1.3981999507e-3f);
    p = madd(p, r, 8.3334519073e-3f);
    p = madd(p, r, 4.1665795894e-2f);
    p = madd(p, r, 1.6666665459e-1f);
    return madd(p, r, 5.0000001201e-1f);
  }
};

template <class T>
inline typename ExpTraits<T>::Bits bits(T x) {
  typename ExpTraits<T>::Bits b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
template <class T>
inline T from_bits(typename ExpTraits<T>::Bits b) {
  T x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// 2^n for a whole number n of the normal exponent range held as a T: the exponent field built
// directly.
template <class T>
inline T pow2(T n) {
  using E = ExpTraits<T>;
  const typename E::Bits i = bits(n + E::kShift) - bits(E::kShift);
  return from_bits<T>((i + E::kBias) << E::kSignificand);
}

// e^x = 2^n p for x within the bounds: n = round(x / ln2), p = e^r, x = n ln2 + r, |r| <= ln2 / 2
// (to rounding).
template <class T>
struct ExpParts {
  T n, p;
};
template <class T>
inline ExpParts<T> exp_parts(T x) {
  using E = ExpTraits<T>;
  const T n = madd(x, E::kLog2e, E::kShift) - E::kShift;
  const T r = madd(-n, E::kLn2Lo, madd(-n, E::kLn2Hi, x));
  return {n, T(1) + madd(r * r, E::tail(r), r)};
}

template <class T>
inline T exp_host(T x) {
  using E = ExpTraits<T>;
  // NaN passes through the bounds (both comparisons are false).
  const ExpParts<T> e = exp_parts(x > E::kMax ? E::kMax : x < E::kMin ? E::kMin : x);
  // 2^n as two factors, each a normal number over the whole range of n: the product rounds once,
  // into the subnormals or to inf where e^x does.
  const T n1 = (e.n * T(0.5) + E::kShift) - E::kShift;
  return e.p * pow2(n1) * pow2(e.n - n1);
}

// exp_host where x >= kMinNormal (its bits), e^kMinNormal below: no subnormal results, so one
// scaling: 2p (exact) by 2^(n-1), a normal number from kMinNormal to kMax (2^n is not at kMax),
// rounded once: to inf where e^x overflows, exactly p 2^n elsewhere.
template <class T>
inline T exp_normal_host(T x) {
  using E = ExpTraits<T>;
  const ExpParts<T> e = exp_parts(x > E::kMax ? E::kMax : x < E::kMinNormal ? E::kMinNormal : x);
  return (e.p * T(2)) * pow2(e.n - T(1));
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
  return detail::exp_host(x);
#endif
}

// e^x, but e^-708 (float: e^-86) for smaller x: never a subnormal, which costs the CPU's exp a
// second scaling. For where only 1 + e^x matters (1 + e^-708 is 1, as is 1 + any smaller e^x) or
// x is bounded below anyway. On the GPU, CUDA's exp.
template <class T>  // double or float
SH_HD inline T exp_normal(T x) {
#if defined(__CUDA_ARCH__)
  return vmath::exp(x);  // CUDA's exp or expf
#else
  return detail::exp_normal_host(x);
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
