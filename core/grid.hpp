#pragma once
#include <array>
#include <cmath>
#include <string>

#include "core/geometry.hpp"

namespace staghorn {

// The global grid: N = (nx, ny, nz) cells on a box, each axis periodic or bounded. A 2-D run has
// nz = 1 (and a 1-D run ny = nz = 1): such an axis is inactive and carries no halo.
struct Grid {
  Int3 n{1, 1, 1};
  std::array<double, 3> length{1.0, 1.0, 1.0};
  std::array<double, 3> origin{0.0, 0.0, 0.0};
  std::array<bool, 3> periodic{false, false, false};
  std::string units = "1";

  double spacing(int axis) const { return length[axis] / n[axis]; }
  bool active(int axis) const { return n[axis] > 1; }
  int dims() const { return active(2) ? 3 : (active(1) ? 2 : 1); }
  long long cells() const { return n.volume(); }
  // Sum over the active axes of (pi / L)^2: the slowest mode of a unit diffusion over the box, the
  // one the pseudo-transient damping is tuned for.
  double slowest_mode() const {
    double s = 0;
    for (int a = 0; a < dims(); ++a) s += M_PI * M_PI / (length[a] * length[a]);
    return s;
  }

  // Global number of points of a field at `loc` along `axis`: a bounded staggered axis has one
  // more face than cells.
  int points(Location loc, int axis) const {
    return n[axis] + (staggered(loc, axis) && active(axis) && !periodic[axis] ? 1 : 0);
  }
  // Coordinate of point i (global index) of a field at `loc`.
  double coordinate(Location loc, int axis, int i) const {
    return origin[axis] + (i + (staggered(loc, axis) ? 0.0 : 0.5)) * spacing(axis);
  }
};

}  // namespace staghorn
