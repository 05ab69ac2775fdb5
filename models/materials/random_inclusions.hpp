#pragma once
// Non-overlapping spheres at random places: the same bodies for the same keys on every machine,
// rank and rank count.

#include <vector>

#include "core/grid.hpp"
#include "models/materials/options.hpp"
#include "models/materials/shapes.hpp"

namespace staghorn::materials {

// `count` spheres of radii uniform in [radius_min, radius_max], placed largest first by seeded
// rejection sampling: inside the domain on bounded axes, anywhere on periodic ones, each surface
// at least `gap` from every other (nearest images on periodic axes). ConfigError naming
// `p.key`.count when they do not fit.
std::vector<Body> random_inclusions(const PhaseOptions& p, const Grid& g);

}  // namespace staghorn::materials
