#pragma once
// x^m for a whole exponent 0 <= m < 16 by branch-free binary powering: a handful of multiplies
// and selects. Multiplies only (no contraction), so every backend gives the same bits, in double
// or in float. The models' power laws (diffusivity, permeability) use it where the exponent is a
// whole number and call pow otherwise.

#include "core/platform.hpp"

namespace staghorn {

template <class T>
SH_HD inline T int_power(T x, int m) {
  const T x2 = x * x, x4 = x2 * x2, x8 = x4 * x4;
  T p = (m & 1) ? x : T(1);
  p *= (m & 2) ? x2 : T(1);
  p *= (m & 4) ? x4 : T(1);
  p *= (m & 8) ? x8 : T(1);
  return p;
}

}  // namespace staghorn
