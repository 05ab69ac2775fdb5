#pragma once
// The series both polynomial exponentials use (core/fast_math.hpp on the GPU, core/vector_math.hpp
// on the CPU's row loops) after the reduction x = n ln2 + r, |r| <= ln2 / 2:
//   e^r = 1 + r + r^2 p(r),  p(r) = 1/2! + r/3! + ... + r^11/13!
// (Taylor to r^13; the next term is below 1e-17 of e^r). Horner (or Estrin) with the caller's
// multiply-add madd(a, b, c) = a b + c: a fused one on the GPU, separately rounded on the CPU,
// where no FMA contraction keeps every vector lane and instruction set alike.

#include "core/platform.hpp"

namespace staghorn {

// The coefficients 1/(k + 2)! of r^k in p(r).
struct ExpTail {
  static constexpr double c0 = 0.5, c1 = 1.0 / 6.0, c2 = 1.0 / 24.0, c3 = 1.0 / 120.0,
                          c4 = 1.0 / 720.0, c5 = 1.0 / 5040.0, c6 = 1.0 / 40320.0,
                          c7 = 1.0 / 362880.0, c8 = 1.0 / 3628800.0, c9 = 1.0 / 39916800.0,
                          c10 = 1.0 / 479001600.0, c11 = 1.0 / 6227020800.0;
};

template <class MulAdd>
SH_HD inline double exp_series_tail(double r, MulAdd madd) {
  using C = ExpTail;
  double p = C::c11;
  p = madd(p, r, C::c10);
  p = madd(p, r, C::c9);
  p = madd(p, r, C::c8);
  p = madd(p, r, C::c7);
  p = madd(p, r, C::c6);
  p = madd(p, r, C::c5);
  p = madd(p, r, C::c4);
  p = madd(p, r, C::c3);
  p = madd(p, r, C::c2);
  p = madd(p, r, C::c1);
  return madd(p, r, C::c0);
}

// The same p(r) by Estrin's scheme (pairs, then pairs of pairs with r^2, r^4, r^8): about as many
// operations as Horner's but a dependency chain of 5 multiply-adds instead of 12, for loops whose
// cells' chains are longer than the CPU's out-of-order window can overlap (the rows kernels').
template <class MulAdd>
SH_HD inline double exp_series_tail_estrin(double r, MulAdd madd) {
  using C = ExpTail;
  const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
  const double q0 = madd(C::c1, r, C::c0), q1 = madd(C::c3, r, C::c2), q2 = madd(C::c5, r, C::c4),
               q3 = madd(C::c7, r, C::c6), q4 = madd(C::c9, r, C::c8), q5 = madd(C::c11, r, C::c10);
  const double s0 = madd(q1, r2, q0), s1 = madd(q3, r2, q2), s2 = madd(q5, r2, q4);
  return madd(s2, r8, madd(s1, r4, s0));
}

}  // namespace staghorn
