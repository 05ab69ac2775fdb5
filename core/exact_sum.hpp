#pragma once
// Sums over the grid that are independent of the rank count and of the order of reduction, as the
// fields are: every term is rounded to a multiple of one power of two (the quantum), small enough
// to keep the sum's precision and large enough that every partial sum of such terms is exact in
// `real`. Exact partial sums add up to the same bits in any order, on any split of the grid.
// Two passes: the largest |term| over all ranks sets the quantum q, then each term is split into
// a multiple of q and a remainder quantised much finer, and both parts are summed exactly (so the
// result keeps about the precision of a double sum of the terms) (used by diagnostics that reach an
// output, and by the rigid-body modes of stokes).

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/comm.hpp"
#include "core/for_each.hpp"
#include "core/reduce_each.hpp"

namespace staghorn {

// The largest power of two that keeps n terms of magnitude <= bound, and all their partial sums,
// exact in `real` (one bit of margin for the rounding of each term). On the device too: passes
// that take their quanta from bounds on the backend need no trip through the host.
// Where bound * n is a normal double and the quantum too (always, but for bounds near the ends of
// the range), the quantum's exponent comes from the bits of bound * n and the quantum is built
// from its exponent field: a few integer operations, where frexp and ldexp are calls on the GPU
// (passes that take a quantum per term). The same values as frexp and ldexp.
namespace detail {
constexpr int kQuantumDigits = std::numeric_limits<real>::digits - 2;

SH_HD inline double power_of_two(int p) {  // -1022 <= p <= 1023
  const unsigned long long b = static_cast<unsigned long long>(p + 1023) << 52;
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}
// The exponent p of the quantum 2^p of n terms up to `bound`, or a value below -1022 where
// bound * n is not a normal double (frexp and ldexp then).
SH_HD inline int quantum_exponent(double bound, double n) {
  const double x = bound * n;
  if (!(x >= std::numeric_limits<double>::min())) return -2000;
  unsigned long long b;
  std::memcpy(&b, &x, sizeof b);
  return static_cast<int>(b >> 52) - 1022 - kQuantumDigits;  // x < 2^(p + digits - 2)
}
}  // namespace detail

SH_HD inline real exact_quantum(double bound, double n) {
  if (!(bound > 0) || !std::isfinite(bound * n)) return 1;
  const int p = detail::quantum_exponent(bound, n);
  if (p >= -1022) return static_cast<real>(detail::power_of_two(p));
  int e = 0;
  std::frexp(bound * n, &e);  // bound * n < 2^e
  return static_cast<real>(std::ldexp(1.0, e - detail::kQuantumDigits));
}

// 1 / exact_quantum(bound, n), exact (a power of two), without a division where both are normal.
SH_HD inline real exact_quantum_inverse(double bound, double n) {
  const int p = detail::quantum_exponent(bound, n);
  if (bound > 0 && std::isfinite(bound * n) && p >= -1022 && p <= 1022)
    return static_cast<real>(detail::power_of_two(-p));
  return real(1) / exact_quantum(bound, n);
}

namespace detail {
template <class F>
struct AbsTerm {
  F f;
  SH_HD real operator()(int i, int j, int k) const { return fabs(f(i, j, k)); }
};
// Each component of f's Terms<N> split into a multiple of its q (hi) and the rest rounded to a
// multiple of its q2 (lo): both sums exact, together some 100 bits of the term. Terms [0, N): the
// his, [N, 2 N): the los.
template <int N, class F>
struct SplitTerms {
  F f;
  real q[N], q2[N];
  SH_HD Terms<2 * N> operator()(int i, int j, int k) const {
    const Terms<N> t = f(i, j, k);
    Terms<2 * N> s;
    for (int n = 0; n < N; ++n) {
      const real hi = rint(t.v[n] / q[n]) * q[n];
      s.v[n] = hi;
      s.v[N + n] = rint((t.v[n] - hi) / q2[n]) * q2[n];
    }
    return s;
  }
};
// A scalar functor as one of one component.
template <class F>
struct OneTerm {
  F f;
  SH_HD Terms<1> operator()(int i, int j, int k) const { return {{f(i, j, k)}}; }
};
}  // namespace detail

// The sums over `r` on every rank of `comm` (collective) of the N components of f(i, j, k) (a
// Terms<N>), each to the same bits on any rank count and equal to exact_sum of that component
// alone, in one pass: `bounds` holds each component's largest |term| over all ranks (from a pass of
// maxima that the caller makes anyway, of all N at once). A component whose bound is not finite
// gets a plain sum (NaN or infinite, as a plain sum would be).
template <int N, class F>
std::array<double, N> exact_sums(const Exec& ex, const Comm& comm, const Region& r, const F& f,
                                 const std::array<double, N>& bounds) {
  std::array<double, N> out{};
  bool all_finite = true;
  for (double b : bounds) all_finite = all_finite && std::isfinite(b);
  if (!all_finite) {
    const std::array<double, N> plain = reduce_each<N>(ex, r, SumOp{}, f);
    const std::vector<double> total = comm.sum(std::vector<double>(plain.begin(), plain.end()));
    for (int n = 0; n < N; ++n) out[n] = total[n];
  }
  const double cells = static_cast<double>(comm.sum(r.size()));
  detail::SplitTerms<N, F> split{f, {}, {}};
  for (int n = 0; n < N; ++n) {
    const double bound = std::isfinite(bounds[n]) ? bounds[n] : 0;
    split.q[n] = exact_quantum(bound, cells);
    split.q2[n] = exact_quantum(split.q[n] / 2, cells);  // the rest of each term is at most q / 2
  }
  const std::array<double, 2 * N> local = reduce_each<2 * N>(ex, r, SumOp{}, split);
  const std::vector<double> total = comm.sum(std::vector<double>(local.begin(), local.end()));
  for (int n = 0; n < N; ++n)
    if (std::isfinite(bounds[n])) out[n] = total[n] + total[N + n];
  return out;
}

// The sum of f over `r` on every rank of `comm` (collective), to the same bits on any rank count.
// A term that is not finite makes the sum NaN or infinite, as a plain sum would.
template <class F>
double exact_sum(const Exec& ex, const Comm& comm, const Region& r, const F& f) {
  const double bound = comm.max(reduce(ex, r, MaxOp{}, detail::AbsTerm<F>{f}));
  return exact_sums<1>(ex, comm, r, detail::OneTerm<F>{f}, {bound})[0];
}

}  // namespace staghorn
