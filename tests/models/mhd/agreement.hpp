#pragma once
// How closely two kernels' states agree (mhd_parity_test, mhd_pencil_parity_test): Astaroth's
// model-solution metric, the largest absolute difference in ulps, taken relative to each field's
// range (u and A are noise about 0, so a per-point ulp can be arbitrarily small), and the
// difference against the largest increment of the reference over the same stages.
#include <cmath>
#include <limits>
#include <vector>

#include "core/platform.hpp"

namespace staghorn::test {

// The spacing of reals at x: one ulp.
inline double ulp_of(double x) {
  return std::ldexp(1.0, std::ilogb(x) - (std::numeric_limits<real>::digits - 1));
}

struct Agreement {
  double ulps = 0;       // max |a - b| / ulp(max |ref|)
  double increment = 0;  // max |ref - before|
  double diff = 0;       // max |a - b|
};

inline Agreement compare(const std::vector<real>& before, const std::vector<real>& ref,
                         const std::vector<real>& b) {
  Agreement g;
  double range = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    range = std::fmax(range, std::fabs(ref[i]));
    g.increment = std::fmax(g.increment, std::fabs(ref[i] - before[i]));
    g.diff = std::isfinite(b[i]) ? std::fmax(g.diff, std::fabs(ref[i] - b[i])) : INFINITY;
  }
  g.ulps = g.diff / ulp_of(range);
  return g;
}

}  // namespace staghorn::test
