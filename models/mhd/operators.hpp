#pragma once
// Vector calculus on collocated fields from the central differences of core/derivatives.hpp:
// gradients, Laplacians, and the derivatives of a vector field that the MHD equations need.

#include "core/derivatives.hpp"
#include "core/unroll.hpp"
#include "models/mhd/vec3.hpp"

namespace staghorn::mhd {

// The grid as the difference operators see it: strides of the three axes in memory (0 on an
// inactive axis, whose derivatives then vanish) and the inverse spacings.
struct Axes {
  std::ptrdiff_t s[3];
  real r1[3];  // 1 / dx_a (0 on an inactive axis)
};

// f(0), f(1), f(2): each axis a compile-time constant (core/unroll.hpp), so that d2_dadb's a == b
// folds away in a loop over cells.
template <class F>
SH_HD inline void each_axis(F&& f) {
  unroll<0, 3>(f);
}

template <int O>
SH_HD inline real d_da(const real* p, const Axes& ax, int a) {
  return fd::d1<O>(p, ax.s[a], ax.r1[a]);
}

// d2 f / dx_a dx_b; a == b is the plain second derivative.
template <int O>
SH_HD inline real d2_dadb(const real* p, const Axes& ax, int a, int b) {
  if (a == b) return fd::d2<O>(p, ax.s[a], ax.r1[a] * ax.r1[a]);
  return fd::d2_mixed<O>(p, ax.s[a], ax.s[b], ax.r1[a] * ax.r1[b]);
}

template <int O>
SH_HD inline Vec3 gradient(const real* p, const Axes& ax) {
  return {d_da<O>(p, ax, 0), d_da<O>(p, ax, 1), d_da<O>(p, ax, 2)};
}

template <int O>
SH_HD inline real laplacian(const real* p, const Axes& ax) {
  return d2_dadb<O>(p, ax, 0, 0) + d2_dadb<O>(p, ax, 1, 1) + d2_dadb<O>(p, ax, 2, 2);
}

// What the equations need of a vector field v: its gradient g_ij = d v_i / d x_j, its Laplacian
// and grad(div v) (which needs the mixed derivatives).
struct VectorDerivatives {
  Mat3 grad;
  Vec3 lap, grad_div;
  SH_HD real div() const { return grad.trace(); }
  // curl v = (d_y v_z - d_z v_y, d_z v_x - d_x v_z, d_x v_y - d_y v_x).
  SH_HD Vec3 curl() const {
    return {grad.m[2][1] - grad.m[1][2], grad.m[0][2] - grad.m[2][0], grad.m[1][0] - grad.m[0][1]};
  }
  // curl curl v = grad div v - lap v.
  SH_HD Vec3 curl_curl() const { return grad_div - lap; }
};

// Adds component c of a vector field (values at p) to its derivatives: row c of the gradient,
// lap v_c, and its terms d_i d_c v_c of (grad div v)_i. Components must come in the order 0, 1, 2
// onto a zeroed grad_div (the sums then run in one fixed order, whichever kernel gathers them).
template <int O>
SH_HD inline void add_component(const real* p, const Axes& ax, int c, VectorDerivatives& d) {
  each_axis([&](auto j) { d.grad.m[c][j] = d_da<O>(p, ax, j); });
  d.lap[c] = laplacian<O>(p, ax);
  each_axis([&](auto i) { d.grad_div[i] += d2_dadb<O>(p, ax, i, c); });
}

}  // namespace staghorn::mhd
