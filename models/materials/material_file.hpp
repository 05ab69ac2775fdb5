#pragma once
// A property read from a NetCDF file: one variable on a rectilinear grid (a 1-D coordinate
// variable per dimension, ascending or descending) that covers the domain's cell centres,
// interpolated linearly per axis (bilinear in 2-D, trilinear in 3-D) and held constant beyond the
// file's last coordinates (the outer half cells, ghosts).

#include <array>
#include <string>
#include <vector>

#include "core/grid.hpp"
#include "core/platform.hpp"

namespace staghorn::materials {

class GridField {
 public:
  // Reads `variable` of `file`. Dimensions map to axes by name (x, y, z), else by the coordinate
  // variable's `axis` attribute (X, Y, Z), else by position as xarray writes a field indexed
  // [z, y, x] (the last dimension is x). Errors (ConfigError) name `key`, the config key that
  // named the variable, the file and the variable: a file that cannot be opened, no such
  // variable, other dimensions than the grid's, a missing or non-monotonic coordinate, a grid
  // that does not cover the cell centres, a packed variable, a non-finite or missing value, or a
  // value <= 0 where `positive`.
  GridField(const std::string& file, const std::string& variable, const std::string& key,
            const Grid& g, bool positive);
  real at(const real x[3]) const;
  real min() const { return min_; }
  real max() const { return max_; }

 private:
  int dims_;
  std::array<std::vector<double>, 3> coords_;  // ascending
  std::array<std::size_t, 3> stride_{};        // in the file's order
  std::array<bool, 3> flipped_{};              // the file's coordinate descends
  std::vector<double> values_;                 // as stored in the file
  real min_ = 0, max_ = 0;
};

}  // namespace staghorn::materials
