#pragma once
// The q-quantile of a positive cell field over the whole domain, the same on any rank count: a
// bisection on log(value) whose counts are exact sums of ones (integers), so every rank takes the
// same branch at every step, then snapped to a value of the field by a global min.

#include <cmath>
#include <limits>

#include "core/comm.hpp"
#include "core/exact_sum.hpp"
#include "core/field.hpp"
#include "core/for_each.hpp"

namespace staghorn {

namespace quantile_detail {
// 1 where the value is at least `threshold`.
struct AtLeast {
  View f;
  real threshold;
  SH_HD real operator()(int i, int j, int k) const { return f(i, j, k) >= threshold ? 1 : 0; }
};
// -value where the value is at least `threshold`, else -infinity (a max of it is minus a min).
struct NegatedFrom {
  View f;
  real threshold;
  SH_HD real operator()(int i, int j, int k) const {
    const real x = f(i, j, k);
    return x >= threshold ? -x : -std::numeric_limits<real>::infinity();
  }
};
}  // namespace quantile_detail

// The largest value m of the field such that at least a fraction 1 - q of the cells are >= m
// (q = 0.5: the median). Every value must be positive and finite.
inline real quantile(const Exec& ex, const Comm& comm, const Region& interior, const Field& f,
                     double q) {
  using namespace quantile_detail;
  const View v = f.view();
  auto min_from = [&](real t) {
    return -comm.max(reduce(ex, interior, MaxOp{}, NegatedFrom{v, t}));
  };
  auto count_from = [&](real t) { return exact_sum(ex, comm, interior, AtLeast{v, t}); };
  const real lo = min_from(0);
  const double need = (1 - q) * count_from(lo);
  // count_from(e^a) >= need > count_from(e^b); the answer lies in [e^a, e^b).
  double a = std::log(lo), b = a + 1;
  while (count_from(real(std::exp(b))) >= need) b = a + 2 * (b - a);
  while (b - a > 1e-9 * (1 + std::fabs(a))) {
    const double mid = 0.5 * (a + b);
    (count_from(real(std::exp(mid))) >= need ? a : b) = mid;
  }
  // The field's values in [e^a, e^b) all have the same count above them: the smallest is m.
  return min_from(real(std::exp(a)));
}

}  // namespace staghorn
