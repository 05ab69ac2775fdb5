#pragma once
// The series both polynomial exponentials use (core/fast_math.hpp on the GPU, core/vector_math.hpp
// on the CPU's row loops) after the reduction x = n ln2 + r, |r| <= ln2 / 2:
//   e^r = 1 + r + r^2 p(r),  p(r) = 1/2! + r/3! + ... + r^11/13!
// (Taylor to r^13; the next term is below 1e-17 of e^r). Horner with the caller's multiply-add
// madd(a, b, c) = a b + c: a fused one on the GPU, separately rounded on the CPU, where no FMA
// contraction keeps every vector lane and instruction set alike.

#include "core/platform.hpp"

namespace staghorn {

template <class MulAdd>
SH_HD inline double exp_series_tail(double r, MulAdd madd) {
  double p = 1.0 / 6227020800.0;  // 1/13!
  p = madd(p, r, 1.0 / 479001600.0);
  p = madd(p, r, 1.0 / 39916800.0);
  p = madd(p, r, 1.0 / 3628800.0);
  p = madd(p, r, 1.0 / 362880.0);
  p = madd(p, r, 1.0 / 40320.0);
  p = madd(p, r, 1.0 / 5040.0);
  p = madd(p, r, 1.0 / 720.0);
  p = madd(p, r, 1.0 / 120.0);
  p = madd(p, r, 1.0 / 24.0);
  p = madd(p, r, 1.0 / 6.0);
  return madd(p, r, 0.5);
}

}  // namespace staghorn
