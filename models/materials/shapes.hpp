#pragma once
// One body of a phase on the grid: a sphere, an ellipsoid, a box or a layer, with the test of
// whether a point lies in it and the box that bounds it (to skip cells far from it).

#include <array>
#include <limits>

#include "core/grid.hpp"
#include "core/platform.hpp"
#include "models/materials/options.hpp"

namespace staghorn::materials {

struct Body {
  Shape shape = Shape::sphere;  // never random_inclusions: those are spheres
  std::array<real, 3> centre{};
  std::array<real, 3> half{};  // sphere: radius in [0]; ellipsoid: semi-axes; box: half sizes
  std::array<std::array<real, 3>, 3> axes{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};  // rotated x, y, z
  std::array<real, 3> normal{};                                                // layer: unit normal
  real from = 0, to = 0;                                                       // layer
  // Half extents of the axis-aligned box around the body (infinite for a layer).
  std::array<real, 3> bound{};

  // Whether point x lies inside (periodic axes: the nearest image of the centre).
  bool contains(const Grid& g, const real x[3]) const;
  // Whether the cell of spacing h around x may hold a point inside (bounding boxes overlap).
  bool near(const Grid& g, const real x[3]) const;
  // Whether any of the body reaches into the domain (its bounding box, or a layer's slab).
  bool meets_domain(const Grid& g) const;
};

// x - centre along axis a, wrapped to the nearest image on a periodic axis.
real displacement(const Grid& g, int a, real x, real centre);

// The body of an explicit shape (not random_inclusions) on grid g; ConfigError naming the key
// when it is degenerate (a box with lo >= hi, a zero normal, a 3-D rotation in 2-D).
Body body_of(const PhaseOptions& p, const Grid& g);

// A sphere of radius r at c.
Body sphere(const std::array<real, 3>& c, real r);

}  // namespace staghorn::materials
