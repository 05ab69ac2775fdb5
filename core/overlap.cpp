#include "core/overlap.hpp"

#include <algorithm>

namespace staghorn {

ShellSplit split_shell(const Region& interior, Int3 width) {
  ShellSplit s;
  s.interior = interior;
  Region rest = interior;  // shrinks as each axis's two slabs are cut off
  for (int a = 0; a < 3; ++a) {
    const int n = rest.hi[a] - rest.lo[a];
    // A block no thicker than two widths is all shell along the axis (its odd middle cell too:
    // on blocks thinner than two halos that cell is sent).
    const int w_hi = std::min(width[a], n / 2), w_lo = std::min(width[a], n - w_hi);
    if (w_hi <= 0 || rest.empty()) continue;
    Region lo = rest, hi = rest;
    lo.hi[a] = rest.lo[a] + w_lo;
    hi.lo[a] = rest.hi[a] - w_hi;
    s.shell.push_back(lo);
    s.shell.push_back(hi);
    rest.lo[a] += w_lo;
    rest.hi[a] -= w_hi;
  }
  s.inner = rest;
  return s;
}

ShellSplit split_for(const HaloExchange& halo, const Region& interior, Int3 width) {
  const Int3 axes = halo.axes();
  for (int a = 0; a < 3; ++a) width[a] = axes[a] ? std::max(width[a], halo.layout().h[a]) : 0;
  return split_shell(interior, width);
}

}  // namespace staghorn
