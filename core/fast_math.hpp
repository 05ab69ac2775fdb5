#pragma once
// Arithmetic for latency-bound GPU kernels that computes what the plain expressions compute, with
// fewer instructions on the device (elsewhere: the plain expressions).
//   divide(a, b): a / b without the branch to the division's slow path. The device division is
//     CUDA's own sequence (reciprocal estimate, two Newton steps, one correction of the quotient);
//     its slow path only serves operands or quotients near the ends of the exponent range (below
//     about 1e-290 or above 1e290), which the callers' quantities (viscosities, pseudo-steps,
//     porosities) never reach. Without the branch the compiler can interleave several divisions.
//   exp_expm1(y): exp(y) and expm1(y) from one argument reduction and one polynomial, for the
//     porosity law that needs both of the same argument (within 1 and 2 ulp of CUDA's exp and
//     expm1, measured: tests/core/fast_math_test.cpp).

#include <cmath>
#include <type_traits>

#include "core/exp_series.hpp"
#include "core/platform.hpp"

namespace staghorn {

struct ExpPair {
  real exp, expm1;
};

#if defined(__CUDA_ARCH__)
namespace detail {
__device__ inline double divide(double a, double b) {
  double y;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(b));
  y = __hiloint2double(__double2hiint(y), 1);  // the low word CUDA's division starts from
  double e = fma(-b, y, 1.0);
  e = fma(e, e, e);
  y = fma(y, e, y);
  e = fma(-b, y, 1.0);
  y = fma(y, e, y);
  const double q = a * y;
  return fma(y, fma(-b, q, a), q);
}

// exp and expm1 of y for |y| < 700 (2^n stays in the normal range).
__device__ inline void exp_expm1(double y, double& exp_y, double& expm1_y) {
  // y = n ln2 + r, |r| <= ln2 / 2 (ln2 in two parts: n ln2_hi is exact).
  const double n = rint(y * 1.4426950408889634);
  double r = fma(-n, 6.93147180559945286227e-01, y);
  r = fma(-n, 2.31904681384629955842e-17, r);
  // expm1(r) = r + r^2 p(r) (core/exp_series.hpp), Horner with fused multiply-adds.
  const double p = exp_series_tail(r, [](double a, double b, double c) { return fma(a, b, c); });
  const double m = fma(r * r, p, r);
  const double s = __hiloint2double((static_cast<int>(n) + 1023) << 20, 0);  // 2^n
  exp_y = fma(s, m, s);
  expm1_y = fma(s, m, s - 1);
}
}  // namespace detail
#endif

SH_HD inline real divide(real a, real b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<real, double>) return detail::divide(a, b);
#endif
  return a / b;
}

SH_HD inline ExpPair exp_expm1(real y) {
#if defined(__CUDA_ARCH__)
  // Beyond +-700, 2^n leaves the normal range (or exp overflows): the library's functions.
  if constexpr (std::is_same_v<real, double>) {
    if (y > -700 && y < 700) {
      double e, em1;
      detail::exp_expm1(y, e, em1);
      return {real(e), real(em1)};
    }
  }
#endif
  return {real(exp(y)), real(expm1(y))};
}

}  // namespace staghorn
