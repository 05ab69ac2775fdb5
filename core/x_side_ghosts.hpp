#pragma once
// The ghosts beyond a block's x sides, set by a tiled kernel as it stores the values they mirror:
// the same values as the x sweep of fill_ghosts with the same rules. That sweep touches one memory
// sector per row of each array, far from the rows' other accesses; a kernel storing the row's end
// anyway writes the ghost's sector with it. The caller then fills only the other sides. Rows
// outside the block's interior (edges, corners) are left to the other axes' fills and the halo
// exchange, which set them after the kernel as before.

#include <array>

#include "core/boundary.hpp"
#include "core/sector_store.hpp"

namespace staghorn {

// The ghost beyond side `side` (0 low, 1 high) of an axis of n cells and halo h that mirrors point
// i of a field (staggered along that axis or not), as fill_ghosts sets it: its index `at`, where
// there is one (the point lies within the halo's reach of the side, and is not the side's own
// point of a staggered field, which no rule moves).
struct Mirror {
  int at;
  bool exists;
};
SH_HD inline Mirror wall_mirror(bool staggered, int side, int n, int h, int i) {
  const GhostSpan span = ghost_span(staggered, side, n, h);
  const int g = span.mirror - i;
  return {g, g >= span.lo && g < span.hi && g != i};
}

// The x sides' ghosts of N fields of one layout, field c by rule[side][c].
template <int N>
struct XSideGhosts {
  GhostRule rule[2][N];         // [x_lo, x_hi][field]
  bool staggered[N] = {};       // field c lies on the x faces
  bool on[2] = {false, false};  // this block's low (high) x side is a physical boundary
  int n = 0, h = 0;             // the block's cells and halo width along x

  SH_HD bool any() const { return on[0] || on[1]; }

  // Stores the ghosts that point i's new values v mirror, at row offset o of out[c].
  SH_HD void store(real* const out[N], long long o, int i, const real v[N]) const {
    for (int side = 0; side < 2; ++side) {
      if (!on[side] || (side == 0 ? i > h : i < n - h)) continue;
      for (int c = 0; c < N; ++c) {
        const GhostRule& r = rule[side][c];
        if (r.kind == GhostRule::keep) continue;
        const Mirror g = wall_mirror(staggered[c], side, n, h, i);
        if (!g.exists) continue;
        const int distance = g.at - i;
        const real ghost = r.ghost(v[c], distance);
        // One cell wide: the ghost's sector with it (store_face_ghost; side is an x side's index).
        if (h == 1)
          store_face_ghost(out[c], o + distance, ghost, side);
        else
          out[c][o + distance] = ghost;
      }
    }
  }
};

// The x sides' ghosts of fields with these rules (x_lo and x_hi of each) on the sides of this
// rank's block that are physical boundaries.
template <int N>
XSideGhosts<N> x_side_ghosts(const std::array<SideRules, N>& rules,
                             const std::array<bool, N>& staggered, const Decomposition& dec,
                             const Layout& l) {
  XSideGhosts<N> x;
  x.n = l.n[0];
  x.h = l.h[0];
  for (int c = 0; c < N; ++c) {
    x.staggered[c] = staggered[c];
    for (int side = 0; side < 2; ++side) x.rule[side][c] = rules[c][side];
  }
  for_each_boundary_side(dec, l, [&](int a, int side) {
    if (a == 0) x.on[side] = true;
  });
  return x;
}

// The rules with their x sides kept: what the fill does once a kernel has stored those ghosts.
inline SideRules beyond_x(SideRules rules) {
  rules[0].kind = rules[1].kind = GhostRule::keep;
  return rules;
}

}  // namespace staghorn
