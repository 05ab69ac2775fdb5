#pragma once
// The ghosts beyond a block's x sides, set by a tiled kernel as it stores the values they mirror:
// the same values as the x sweep of fill_ghosts with the same rules. That sweep touches one memory
// sector per row of each array, far from the rows' other accesses; a kernel storing the row's end
// anyway writes the ghost's sector with it. The caller then fills only the other sides. Rows
// outside the block's interior (edges, corners) are left to the other axes' fills and the halo
// exchange, which set them after the kernel as before. Whether it pays is a measurement per
// kernel: the Stokes tiled kernel gained what its fill lost; the coupled kernel lost about as much
// as its fill gained, and does not use it (docs/performance.md).

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

// The x sides' ghosts of N fields of one layout, field c by rule[side][c]. What the kernel needs
// is worked out once on the host: the points whose ghosts a side sets (first..last, empty where
// the rule keeps them) and the mirror index they are reflected across. The store then costs a
// kernel holding nearly all its registers no more than a comparison and a subtraction per field,
// where the general form (wall_mirror per point, 64-bit offsets) made such a kernel spill.
template <int N>
struct XSideGhosts {
  GhostRule rule[2][N];                   // [x_lo, x_hi][field]
  int first[2][N] = {}, last[2][N] = {};  // the points i whose ghost the side sets
  int mirror[2][N] = {};                  // ghost g = mirror - i (ghost_span's mirror)
  bool on[2] = {false, false};            // this block's low (high) x side is a physical boundary
  int h = 0;                              // the block's halo width along x

  SH_HD bool any() const { return on[0] || on[1]; }

  // Stores the ghosts that point i's new values v mirror, at row offset o of out[c].
  SH_HD void store(real* const out[N], int o, int i, const real v[N]) const {
#pragma unroll
    for (int side = 0; side < 2; ++side) {
      if (!on[side]) continue;
#pragma unroll
      for (int c = 0; c < N; ++c) {
        if (i < first[side][c] || i > last[side][c]) continue;
        const int distance = mirror[side][c] - 2 * i;  // g - i
        const real ghost = rule[side][c].ghost(v[c], distance);
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
  const int n = l.n[0];
  x.h = l.h[0];
  for (int c = 0; c < N; ++c)
    for (int side = 0; side < 2; ++side) {
      x.rule[side][c] = rules[c][side];
      const GhostSpan span = ghost_span(staggered[c], side, n, x.h);
      x.mirror[side][c] = span.mirror;
      // The mirrored points of the span's ghosts, less a staggered boundary point (its own mirror).
      int first = 1, last = 0;
      bool found = false;
      if (rules[c][side].kind != GhostRule::keep)
        for (int i = span.mirror - span.hi + 1; i <= span.mirror - span.lo; ++i) {
          if (!wall_mirror(staggered[c], side, n, x.h, i).exists) continue;
          if (!found) first = i;
          last = i;
          found = true;
        }
      x.first[side][c] = first;
      x.last[side][c] = last;
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
