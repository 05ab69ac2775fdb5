#include "models/stokes/stiff_bodies/wall_ghosts.hpp"

namespace staghorn::stokes {

WallGhosts wall_ghosts(const Walls& walls, const Decomposition& dec, const Layout& l) {
  WallGhosts w;
  for (int a = 0; a < 3; ++a) w.n[a] = l.n[a], w.h[a] = l.h[a];
  for (int c = 0; c < 3; ++c) {
    const SideRules rules = walls.velocity_rules(c);
    for (int side = 0; side < 6; ++side) w.rule[side][c] = rules[side];
  }
  for_each_boundary_side(dec, l, [&](int a, int side) { w.on[2 * a + side] = true; });
  return w;
}

}  // namespace staghorn::stokes
