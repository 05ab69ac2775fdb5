#pragma once
// The walls' ghosts that the stiff bodies' shift stores with the faces it moves.

#include "models/staggered_stokes/walls.hpp"

namespace staghorn::stokes {

// The velocities' ghosts beyond every wall of a block that mirror one face, for a pass that moves
// a few scattered faces (the stiff bodies' shift): it stores them with the face, where a fill of
// the walls after it would cost a launch per side. The same values as fill_ghosts with the walls'
// rules, which sweeps x, then y over the x ghosts, then z over both: a ghost beyond two or three
// walls takes the rules in that order.
struct WallGhosts {
  GhostRule rule[6][3];  // [side][component], sides x_lo, x_hi, y_lo, ...
  bool on[6] = {false, false, false, false, false, false};  // the side is a physical wall
  int n[3] = {0, 0, 0}, h[3] = {0, 0, 0};                   // the block's cells and halo widths

  // Stores every ghost that mirrors the new value v of component c at local point idx, in out.
  SH_HD void store(const View& out, int c, const int idx[3], real v) const {
    int g[3] = {0, 0, 0}, side[3] = {0, 0, 0};
    bool beyond[3] = {false, false, false};
    for (int a = 0; a < 3; ++a)
      for (int s = 0; s < 2; ++s) {
        if (!on[2 * a + s]) continue;
        const Mirror m = wall_mirror(c == a, s, n[a], h[a], idx[a]);
        if (m.exists) g[a] = m.at, side[a] = s, beyond[a] = true;
      }
    for (int mask = 1; mask < 8; ++mask) {
      real value = v;
      int at[3] = {idx[0], idx[1], idx[2]};
      bool stored = true;
      for (int a = 0; a < 3 && stored; ++a) {
        if (!(mask >> a & 1)) continue;
        const GhostRule& r = rule[2 * a + side[a]][c];
        stored = beyond[a] && r.kind != GhostRule::keep;  // a kept ghost mirrors nothing
        value = r.ghost(value, g[a] - idx[a]);
        at[a] = g[a];
      }
      if (stored) out.p[out.offset(at[0], at[1], at[2])] = value;
    }
  }
};

// All walls' ghosts of the velocities for this block of `dec` (layout l): on the sides that are
// physical walls (for_each_boundary_side).
WallGhosts wall_ghosts(const Walls& walls, const Decomposition& dec, const Layout& l);

}  // namespace staghorn::stokes
