#pragma once
// Collocated central finite differences of order 2, 4, 6 and 8 (Order = 2 R points each side of
// the centre use R = Order / 2 neighbours per side). Each operator works on a pointer to the centre
// value and the stride of the axis (0 on an inactive axis gives 0), and returns the undivided
// difference, or the derivative when `scale` is 1/dx (first), 1/dx^2 (second) or 1/(dx dy)
// (mixed): the scale goes into the weights (one rounding per weight, the same in every kernel
// that folds it so, and one multiplication fewer per derivative in a kernel that precomputes them).
// The sums over the points are compile-time loops (core/unroll.hpp), so that a loop over cells
// around them vectorises.

#include <cstddef>

#include "core/platform.hpp"
#include "core/unroll.hpp"

namespace staghorn::fd {

// Weights c_m (m = 1..R) of the first derivative: f' ~ sum_m c_m (f[m] - f[-m]) / dx.
template <int Order>
SH_HD constexpr real first_weight(int m) {
  static_assert(Order == 2 || Order == 4 || Order == 6 || Order == 8, "order 2, 4, 6 or 8");
  if (Order == 2) return 0.5;
  if (Order == 4) return m == 1 ? 2.0 / 3 : -1.0 / 12;
  if (Order == 6) return m == 1 ? 3.0 / 4 : (m == 2 ? -3.0 / 20 : 1.0 / 60);
  return m == 1 ? 4.0 / 5 : (m == 2 ? -1.0 / 5 : (m == 3 ? 4.0 / 105 : -1.0 / 280));
}

// Weights of the second derivative: f'' ~ (w_0 f[0] + sum_m w_m (f[m] + f[-m])) / dx^2.
template <int Order>
SH_HD constexpr real second_weight(int m) {
  static_assert(Order == 2 || Order == 4 || Order == 6 || Order == 8, "order 2, 4, 6 or 8");
  if (Order == 2) return m == 0 ? -2.0 : 1.0;
  if (Order == 4) return m == 0 ? -5.0 / 2 : (m == 1 ? 4.0 / 3 : -1.0 / 12);
  if (Order == 6) return m == 0 ? -49.0 / 18 : (m == 1 ? 3.0 / 2 : (m == 2 ? -3.0 / 20 : 1.0 / 90));
  return m == 0 ? -205.0 / 72
                : (m == 1 ? 8.0 / 5 : (m == 2 ? -1.0 / 5 : (m == 3 ? 8.0 / 315 : -1.0 / 560)));
}

// d f / dx * dx * scale.
template <int Order>
SH_HD inline real d1(const real* p, std::ptrdiff_t s, real scale = 1) {
  real acc = 0;
  unroll<1, Order / 2 + 1>(
      [&](auto m) { acc += (first_weight<Order>(m) * scale) * (p[m * s] - p[-m * s]); });
  return acc;
}

// d2 f / dx2 * dx^2 * scale.
template <int Order>
SH_HD inline real d2(const real* p, std::ptrdiff_t s, real scale = 1) {
  real acc = (second_weight<Order>(0) * scale) * p[0];
  unroll<1, Order / 2 + 1>(
      [&](auto m) { acc += (second_weight<Order>(m) * scale) * (p[m * s] + p[-m * s]); });
  return acc;
}

// d2 f / dx dy * dx dy along the two diagonals (as the Pencil Code): with
// g(m) = f(m, m) + f(-m, -m) - f(m, -m) - f(-m, m), an even series in m whose m^2 term is
// 4 m^2 dx dy f_xy, the second-derivative weights cancel the higher terms exactly as they do
// along one axis. Needs the halo's edges (the points off both axes).
// Times scale.
template <int Order>
SH_HD inline real d2_mixed(const real* p, std::ptrdiff_t s1, std::ptrdiff_t s2, real scale = 1) {
  const std::ptrdiff_t up = s1 + s2, across = s1 - s2;
  real acc = 0;
  unroll<1, Order / 2 + 1>([&](auto m) {
    acc += (second_weight<Order>(m) * (real(0.25) * scale)) *
           ((p[m * up] + p[-m * up]) - (p[m * across] + p[-m * across]));
  });
  return acc;
}

}  // namespace staghorn::fd
