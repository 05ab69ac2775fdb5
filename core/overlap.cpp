#include "core/overlap.hpp"

#include <algorithm>
#include <stdexcept>

namespace staghorn {

ShellSplit split_shell(const Region& interior, Int3 width) {
  ShellSplit s;
  s.interior = interior;
  Region rest = interior;  // shrinks as each axis's two slabs are cut off
  for (int a = 0; a < 3; ++a) {
    const int n = rest.hi[a] - rest.lo[a];
    // A block no thicker than two widths is all shell along the axis (its odd middle cell too:
    // on blocks thinner than two halos that cell is sent).
    // A block of one cell along the axis is one slab (its cell is sent both ways).
    const int w_hi = std::min(width[a], n / 2), w_lo = std::min(width[a], n - w_hi);
    if (w_lo <= 0 || rest.empty()) continue;
    Region lo = rest;
    lo.hi[a] = rest.lo[a] + w_lo;
    s.shell.push_back(lo);
    if (w_hi > 0) {
      Region hi = rest;
      hi.lo[a] = rest.hi[a] - w_hi;
      s.shell.push_back(hi);
    }
    rest.lo[a] += w_lo;
    rest.hi[a] -= w_hi;
  }
  s.inner = rest;
  return s;
}

namespace {

Region intersection(const Region& a, const Region& b) {
  Region r;
  for (int d = 0; d < 3; ++d) {
    r.lo[d] = std::max(a.lo[d], b.lo[d]);
    r.hi[d] = std::min(a.hi[d], b.hi[d]);
  }
  return r;
}

// Per wave: the shell slabs up to the last one any of its send regions overlaps, and no fewer
// than the wave before (waves leave in order).
std::vector<std::size_t> slabs_per_wave(const HaloExchange& halo, const std::vector<Region>& shell) {
  std::vector<std::size_t> ready(static_cast<std::size_t>(halo.waves()), 0);
  std::size_t need = 0;
  for (int w = 0; w < halo.waves(); ++w) {
    for (const Region& sent : halo.wave_sends(w)) {
      long long covered = 0;  // the slabs are disjoint
      for (std::size_t i = 0; i < shell.size(); ++i) {
        const long long cells = intersection(sent, shell[i]).size();
        if (cells > 0) need = std::max(need, i + 1);
        covered += cells;
      }
      if (covered != sent.size())
        throw std::logic_error("split_for: a region the exchange sends lies outside the shell");
    }
    ready[static_cast<std::size_t>(w)] = need;
  }
  // One wave leaves after the whole shell, as it always has.
  if (halo.waves() == 1) ready[0] = shell.size();
  return ready;
}

}  // namespace

ShellSplit split_for(const HaloExchange& halo, const Region& interior, Int3 width) {
  const Int3 axes = halo.axes();
  for (int a = 0; a < 3; ++a) width[a] = axes[a] ? std::max(width[a], halo.layout().h[a]) : 0;
  ShellSplit s = split_shell(interior, width);
  s.ready = slabs_per_wave(halo, s.shell);
  return s;
}

std::size_t slabs_read(const ShellSplit& split, const HaloExchange& halo, int wave) {
  if (split.ready.empty()) return split.shell.size();
  if (split.ready.size() != static_cast<std::size_t>(halo.waves()))
    throw std::logic_error("update_and_exchange: the split was made for another exchange");
  return split.ready[static_cast<std::size_t>(wave)];
}

}  // namespace staghorn
