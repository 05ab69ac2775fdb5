#pragma once
// The face ghosts of a block's physical sides, set by an iteration kernel as it writes the cells
// next to them, by the same GhostRule that fill_ghosts would apply after the kernel (the same
// formula on the same operand, so the same bits) without fill_ghosts' launch, whose x sides touch
// one sector per row. Edges and corners, which no 7-point stencil reads, are left as they were.
// Needs a halo one cell wide along every axis with a physical side.

#include "core/boundary.hpp"
#include "core/pair.hpp"
#include "core/sector_store.hpp"

namespace staghorn {

struct FaceGhosts {
  GhostRule rule[6];  // x_lo, x_hi, ...; GhostRule::keep: not a physical side of this block
  int n[3] = {0, 0, 0};

  FaceGhosts() {
    for (GhostRule& r : rule) r.kind = GhostRule::keep;
  }
  // The rules of this block's physical sides, or none where the halo is wider than one cell
  // along such a side's axis (fill_ghosts then sets them).
  static FaceGhosts of(const Decomposition& dec, const Layout& l, const SideRules& rules) {
    FaceGhosts g;
    bool one_wide = true;
    for_each_boundary_side(dec, l, [&](int a, int side) {
      g.rule[2 * a + side] = rules[2 * a + side];
      one_wide = one_wide && l.h[a] == 1;
    });
    for (int a = 0; a < 3; ++a) g.n[a] = l.n[a];
    return one_wide ? g : FaceGhosts{};
  }

  // Whether the kernel sets the ghosts of side s (2 axis + 0 low / 1 high), and any side's.
  SH_HD bool sets(int s) const { return rule[s].kind != GhostRule::keep; }
  bool any() const {
    for (int s = 0; s < 6; ++s)
      if (sets(s)) return true;
    return false;
  }
  // Whether the cell at index idx along axis a is next to a ghost set here on that side.
  SH_HD bool next_to(int a, int side, int idx) const {
    return sets(2 * a + side) && idx == (side == 0 ? 0 : n[a] - 1);
  }

  // Whether a cell of row (j, k) is next to a ghost set here beyond y or z.
  template <int Dim>
  SH_HD bool row_next_to_y_or_z(int j, int k) const {
    bool next = false;
    if constexpr (Dim >= 2) next = next_to(1, 0, j) || next_to(1, 1, j);
    if constexpr (Dim >= 3) next = next || next_to(2, 0, k) || next_to(2, 1, k);
    return next;
  }

  // Calls store(g, rule, value, distance, side) for every face ghost set here next to the cells
  // i0 .. i1 of row (j, k) at offset o (strides sy, sz): g the ghost's offset, value the new value
  // of the cell it mirrors (V: a real for one cell, a Pair for two along x; v_lo and v_hi: the
  // row's two ends), distance g - m (-1 on a low side, 1 on a high side), side 2 axis + 0 low / 1
  // high. YZ = false: the x sides only, for a row that row_next_to_y_or_z rules out (a kernel then
  // keeps no index live for the other sides' tests).
  template <int Dim, bool YZ = true, class V, class Store>
  SH_HD void visit(int i0, int i1, int j, int k, std::ptrdiff_t o, std::ptrdiff_t sy,
                   std::ptrdiff_t sz, V v, real v_lo, real v_hi, const Store& store) const {
    if (next_to(0, 0, i0)) store(o - 1, rule[0], v_lo, -1, 0);
    if (next_to(0, 1, i1)) store(o + (i1 - i0) + 1, rule[1], v_hi, 1, 1);
    if constexpr (Dim >= 2 && YZ) {
      if (next_to(1, 0, j)) store(o - sy, rule[2], v, -1, 2);
      if (next_to(1, 1, j)) store(o + sy, rule[3], v, 1, 3);
    }
    if constexpr (Dim >= 3 && YZ) {
      if (next_to(2, 0, k)) store(o - sz, rule[4], v, -1, 4);
      if (next_to(2, 1, k)) store(o + sz, rule[5], v, 1, 5);
    }
  }
};

// The store of FaceGhosts::visit for one field: the ghost from the rule, one value or a pair.
struct SetGhost {
  real* p;
  SH_HD void operator()(std::ptrdiff_t g, const GhostRule& rule, real v, int distance,
                        int side) const {
    store_face_ghost(p, g, rule.ghost(v, distance), side);
  }
  SH_HD void operator()(std::ptrdiff_t g, const GhostRule& rule, Pair v, int distance, int) const {
    store2(p + g, {rule.ghost(v.a, distance), rule.ghost(v.b, distance)});
  }
};

}  // namespace staghorn
