#pragma once
// The walls of the staggered-Stokes module (shared by the Stokes model and both hydro-mechanics
// variants): each wall is a set of ghost rules for the velocity components (core/boundary.hpp).

#include <array>
#include <string>

#include "core/boundary.hpp"
#include "core/sector_store.hpp"

namespace staghorn::stokes {

// Kinds of wall: free slip (no normal flow or the prescribed normal velocity, no shear stress),
// no slip (also no tangential flow), prescribed (the velocities the initial state put on the wall
// and its ghosts stay: e.g. an analytical solution's).
enum class Wall { free_slip, no_slip, prescribed };

Wall parse_wall(const std::string& name);

// One kind per side (x_lo, x_hi, y_lo, y_hi, z_lo, z_hi) and the normal velocity on each side.
struct Walls {
  std::array<Wall, 6> kind;
  std::array<real, 6> normal{};

  // The rules of velocity component c: its normal velocity takes `normal` on the wall face
  // (antisymmetric beyond it); a tangential one has zero gradient (free slip) or is zero on the
  // wall (no slip); a prescribed wall keeps its ghosts.
  SideRules velocity_rules(int component) const;
  // Adds the first `dims` velocity components with their rules to a ghost fill, on the sides in
  // `sides` (bit s for side s, in the order above); the others keep their ghosts.
  static constexpr unsigned kAllSides = 63, kNotX = 60;
  void add_velocities(GhostFill& fill, std::array<Field, 3>& V, int dims,
                      unsigned sides = kAllSides) const;
};

// The ghost beyond side `side` (0 low, 1 high) of an axis of n cells and halo h that mirrors point
// i of a component (staggered along that axis or not), as fill_ghosts sets it: its index `at`,
// where there is one (the point lies within the halo's reach of the wall, and is not the wall's
// own point of a staggered component, which no rule moves). What both ghost helpers below store.
struct Mirror {
  int at;
  bool exists;
};
SH_HD inline Mirror wall_mirror(bool staggered, int side, int n, int h, int i) {
  const GhostSpan span = ghost_span(staggered, side, n, h);
  const int g = span.mirror - i;
  return {g, g >= span.lo && g < span.hi && g != i};
}

// The velocities' ghosts beyond this block's x walls, set by the tiled kernels as they store the
// new face velocities that those ghosts mirror: the same values as the x sweep of fill_ghosts with
// the walls' rules, which touches one memory sector per row of each array (far from the rows'
// other accesses) and cost a 3-D iteration a few percent. The caller then fills only the other
// sides (Walls::kNotX). Rows outside the block's interior (edges, corners) are left to the other
// axes' fills and the halo exchange, which set them after the kernel as before.
struct XWallGhosts {
  GhostRule rule[2][3];         // [x_lo, x_hi][component]
  bool on[2] = {false, false};  // this block's low (high) x side is a wall
  int n = 0, h = 0;             // the block's cells and halo width along x

  // Stores the ghosts that cell i's new face velocities v mirror, at row offset o of out[c].
  SH_HD void store(real* const out[3], long long o, int i, const real v[3]) const {
    for (int side = 0; side < 2; ++side) {
      if (!on[side] || (side == 0 ? i > h : i < n - h)) continue;
      for (int c = 0; c < 3; ++c) {
        const GhostRule& r = rule[side][c];
        if (r.kind == GhostRule::keep) continue;
        // the x velocity is staggered along x, the others not
        const Mirror g = wall_mirror(c == 0, side, n, h, i);
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

// The x walls' ghosts of the velocities for this block of `dec` (layout l): on the sides that are
// physical walls (for_each_boundary_side).
XWallGhosts x_wall_ghosts(const Walls& walls, const Decomposition& dec, const Layout& l);

}  // namespace staghorn::stokes
