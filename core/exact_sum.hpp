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
// A term split into a multiple of q (hi) and the rest rounded to a multiple of q2 (lo): both
// sums exact, together some 100 bits of the term.
template <class F>
struct SplitTerm {
  F f;
  real q, q2;
  SH_HD Terms<2> operator()(int i, int j, int k) const {
    const real v = f(i, j, k);
    const real hi = rint(v / q) * q;
    return {{hi, rint((v - hi) / q2) * q2}};
  }
};
}  // namespace detail

// The sum of f over `r` on every rank of `comm` (collective), to the same bits on any rank count.
// A term that is not finite makes the sum NaN or infinite, as a plain sum would.
template <class F>
double exact_sum(const Exec& ex, const Comm& comm, const Region& r, const F& f) {
  const double bound = comm.max(reduce(ex, r, MaxOp{}, detail::AbsTerm<F>{f}));
  if (!std::isfinite(bound)) return comm.sum(reduce(ex, r, SumOp{}, f));  // NaN or Inf shows
  const double n = static_cast<double>(comm.sum(r.size()));
  const real q = exact_quantum(bound, n);
  const real q2 = exact_quantum(q / 2, n);  // the rest of each term is at most q / 2
  const std::array<double, 2> local =
      reduce_each<2>(ex, r, SumOp{}, detail::SplitTerm<F>{f, q, q2});
  return comm.sum(local[0]) + comm.sum(local[1]);
}

}  // namespace staghorn
