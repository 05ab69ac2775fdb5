#pragma once
// Single-precision arithmetic that rounds identically on the host and the device: nvcc would
// otherwise contract a * b + c into one fused operation on the GPU only, and results of the two
// backends would differ. For quantities that need no double precision (e.g. a pseudo-time step),
// but must be reproducible across backends.

#include <cmath>

#include "core/platform.hpp"

namespace staghorn::exact {

SH_HD inline float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
SH_HD inline float add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
SH_HD inline float div(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
// 1 / a, correctly rounded as 1.0f / a is on the host; on the GPU one reciprocal instruction and
// its correction instead of the general division's sequence.
SH_HD inline float rcp(float a) {
#if defined(__CUDA_ARCH__)
  return __frcp_rn(a);
#else
  return 1.0f / a;
#endif
}
SH_HD inline float sqrt(float a) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}

}  // namespace staghorn::exact
