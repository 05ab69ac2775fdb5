#pragma once
// Two neighbouring values along x moved as one 16-byte access on the GPU (the widest load for
// doubles: half the memory instructions for the same bytes). Both must lie at an even offset from
// a 16-byte aligned base (Layout aligns every row's first interior cell to 128 bytes).

#include "core/platform.hpp"

namespace staghorn {

struct Pair {
  real a, b;  // values at x = i and i + 1
};

SH_HD inline Pair load2(const real* p) {
#if defined(__CUDA_ARCH__)
  const double2 v = *reinterpret_cast<const double2*>(p);
  return {v.x, v.y};
#else
  return {p[0], p[1]};
#endif
}

SH_HD inline void store2(real* p, const Pair& v) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<double2*>(p) = make_double2(v.a, v.b);
#else
  p[0] = v.a;
  p[1] = v.b;
#endif
}

}  // namespace staghorn
