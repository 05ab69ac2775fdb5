#pragma once
// Non-overlapping spheres at random places: the same bodies for the same keys on every machine,
// rank and rank count.

#include <vector>

#include "core/grid.hpp"
#include "models/materials/options.hpp"
#include "models/materials/shapes.hpp"

namespace staghorn::materials {

// The most inclusions one phase may have: placing each compares it with those placed, and
// painting a cell checks every body.
constexpr int kMaxInclusions = 10000;

// `count` spheres of radii uniform in [radius_min, radius_max], placed largest first by seeded
// rejection sampling: inside the domain on bounded axes, anywhere on periodic ones, each surface
// at least `gap` from every other (nearest images on periodic axes). ConfigError naming
// `p.key`.count when they do not fit: at once where their volumes (each with half the gap
// around it) exceed the domain's, else when a sphere finds no place, or when the placement has
// used up its budget of distance checks (a second or so).
std::vector<Body> random_inclusions(const PhaseOptions& p, const Grid& g);

}  // namespace staghorn::materials
