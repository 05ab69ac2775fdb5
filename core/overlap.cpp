#include "core/overlap.hpp"

#include <algorithm>

namespace staghorn {

ShellSplit split_shell(const Region& interior, Int3 width) {
  ShellSplit s;
  s.interior = interior;
  Region rest = interior;  // shrinks as each axis's two slabs are cut off
  for (int a = 0; a < 3; ++a) {
    const int n = rest.hi[a] - rest.lo[a];
    const int w = std::min(width[a], n / 2);
    if (w <= 0 || rest.empty()) continue;
    Region lo = rest, hi = rest;
    lo.hi[a] = rest.lo[a] + w;
    hi.lo[a] = rest.hi[a] - w;
    s.shell.push_back(lo);
    s.shell.push_back(hi);
    rest.lo[a] += w;
    rest.hi[a] -= w;
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
