#include "models/staggered_stokes/walls.hpp"

namespace staghorn::stokes {

Wall parse_wall(const std::string& name) {
  if (name == "no_slip") return Wall::no_slip;
  if (name == "prescribed") return Wall::prescribed;
  return Wall::free_slip;
}

SideRules Walls::velocity_rules(int component) const {
  SideRules rules;
  for (int s = 0; s < 6; ++s) {
    const bool along = s / 2 == component;  // the wall's normal velocity
    if (kind[s] == Wall::prescribed)
      rules[s] = {GhostRule::keep};
    else if (along)
      rules[s] = GhostRule::fixed_value(normal[s]);
    else
      rules[s] =
          kind[s] == Wall::free_slip ? GhostRule::zero_gradient() : GhostRule::fixed_value(0);
  }
  return rules;
}

void Walls::add_velocities(GhostFill& fill, std::array<Field, 3>& V, int dims,
                           unsigned sides) const {
  for (int c = 0; c < dims; ++c) {
    SideRules rules = velocity_rules(c);
    for (int s = 0; s < 6; ++s)
      if (!(sides >> s & 1u)) rules[s].kind = GhostRule::keep;
    fill.add(V[c], rules);
  }
}

XWallGhosts x_wall_ghosts(const Walls& walls, const Decomposition& dec, const Layout& l) {
  // The x velocity lies on the x faces, the others not.
  return x_side_ghosts<3>(
      {walls.velocity_rules(0), walls.velocity_rules(1), walls.velocity_rules(2)},
      {true, false, false}, dec, l);
}

}  // namespace staghorn::stokes
