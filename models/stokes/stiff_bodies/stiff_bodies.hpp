#pragma once
// What the Stokes model holds of its stiff bodies (docs/models/stiff-bodies.md):
// their cell labels, their rigid-mode corrections and the walls' ghosts the corrections' shift
// stores. The model sees it through a pointer (stokes.hpp declares it only); rigid_bodies.cpp
// finds the bodies and runs the corrections.

#include <optional>

#include "core/field.hpp"
#include "models/stokes/stiff_bodies/rigid_body.hpp"
#include "models/stokes/stiff_bodies/wall_ghosts.hpp"

namespace staghorn::stokes {

struct StiffBodies {
  std::optional<Field> labels;  // each cell's body (made at the first refresh() that finds one)
  RigidBodies rigid;            // rebuilt by refresh(): mu may have changed
  WallGhosts walls;             // of the walls as the initial state set them
};

}  // namespace staghorn::stokes
