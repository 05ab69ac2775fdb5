#pragma once
// What every translation unit needs to know about the compiler it is seen by.

#if defined(__CUDACC__)
#define SH_HD __host__ __device__
#else
#define SH_HD
#endif

namespace staghorn {
// The floating-point type of fields and kernels: double, or float in a build configured with
// -DSTAGHORN_SINGLE_PRECISION=ON (half the bytes per cell; docs/architecture.md). Grid geometry,
// model time and the diagnostics time series stay double.
#if defined(STAGHORN_SINGLE_PRECISION)
using real = float;
#else
using real = double;
#endif

// fmax and fmin for kernels: unqualified calls in namespace staghorn find these before ::fmax.
// On the host GCC compiles fmax to a call into libm (it keeps NaN and signed-zero rules), and a
// loop holding a call is never vectorised; these are one select each (maxpd, minpd). They return
// what glibc returns for every pair whose second operand is not NaN (the first where it is NaN,
// the second where both compare equal), so results keep their bits; where the second is NaN they
// return NaN: they never hide a NaN that fmax would show. On the device the double ones are the
// same selects (a compare and two 32-bit selects), where CUDA's fmax adds NaN tests around its
// select: about twice the instructions, which bounded a nonlinear diffusion kernel by instruction
// issue. The float ones stay CUDA's: one instruction there.
namespace detail {
template <class T>
SH_HD inline T host_max(T a, T b) {
  return a > b ? a : b;
}
template <class T>
SH_HD inline T host_min(T a, T b) {
  return a < b ? a : b;
}
}  // namespace detail

#if defined(__CUDA_ARCH__)
SH_HD inline double fmax(double a, double b) { return detail::host_max(a, b); }
SH_HD inline double fmin(double a, double b) { return detail::host_min(a, b); }
SH_HD inline float fmax(float a, float b) { return ::fmaxf(a, b); }
SH_HD inline float fmin(float a, float b) { return ::fminf(a, b); }
#else
SH_HD inline double fmax(double a, double b) { return detail::host_max(a, b); }
SH_HD inline double fmin(double a, double b) { return detail::host_min(a, b); }
SH_HD inline float fmax(float a, float b) { return detail::host_max(a, b); }
SH_HD inline float fmin(float a, float b) { return detail::host_min(a, b); }
#endif
}  // namespace staghorn
