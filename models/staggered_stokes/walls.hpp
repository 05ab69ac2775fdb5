#pragma once
// The walls of the staggered-Stokes module (shared by the Stokes model and both hydro-mechanics
// variants): each wall is a set of ghost rules for the velocity components (core/boundary.hpp).

#include <array>
#include <string>

#include "core/boundary.hpp"
#include "core/x_side_ghosts.hpp"

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

// The velocities' ghosts beyond this block's x walls (core/x_side_ghosts.hpp), set by the tiled
// kernels as they store the new face velocities that those ghosts mirror; the walls' fill then
// sets only the other sides (Walls::kNotX).
using XWallGhosts = XSideGhosts<3>;

// The x walls' ghosts of the velocities for this block of `dec` (layout l): on the sides that are
// physical walls (for_each_boundary_side).
XWallGhosts x_wall_ghosts(const Walls& walls, const Decomposition& dec, const Layout& l);

}  // namespace staghorn::stokes
