#include "core/finite.hpp"

#include "core/for_each.hpp"

namespace staghorn {
namespace {

// 1 where the value is NaN or infinite, else 0. x - x is 0 for every finite x and NaN otherwise;
// written without isfinite so that host and device compile the same expression.
struct NonFinite {
  View v;
  SH_HD real operator()(int i, int j, int k) const {
    const real x = v(i, j, k);
    return (x - x == 0) ? real(0) : real(1);
  }
};

// The points a snapshot writes of a field (the closing face of a bounded axis included).
Region owned(const Decomposition& dec, const Field& f) {
  Int3 hi;
  for (int a = 0; a < 3; ++a) hi[a] = dec.owned_points(f.location(), a);
  return {{0, 0, 0}, hi};
}

}  // namespace

std::string first_non_finite(const Exec& ex, const Decomposition& dec,
                             const std::vector<const Field*>& fields) {
  const double n = static_cast<double>(fields.size());
  double local = 0;  // n - index of this rank's first bad field, 0 when none: the max is the first
  for (std::size_t i = 0; i < fields.size() && local == 0; ++i)
    if (reduce(ex, owned(dec, *fields[i]), MaxOp{}, NonFinite{fields[i]->view()}) != 0)
      local = n - static_cast<double>(i);
  const double worst = dec.comm().max(local);
  if (worst == 0) return "";
  return fields[static_cast<std::size_t>(n - worst)]->name();
}

}  // namespace staghorn
