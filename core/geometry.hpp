#pragma once
#include <array>
#include <cstddef>
#include <string>

#include "core/platform.hpp"

namespace staghorn {

struct Int3 {
  int x = 0, y = 0, z = 0;
  SH_HD constexpr int operator[](int a) const { return a == 0 ? x : (a == 1 ? y : z); }
  SH_HD constexpr int& operator[](int a) { return a == 0 ? x : (a == 1 ? y : z); }
  SH_HD constexpr long long volume() const { return (long long)x * y * z; }
};

inline bool operator==(Int3 a, Int3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
inline bool operator!=(Int3 a, Int3 b) { return !(a == b); }

// A half-open box of local indices [lo, hi).
struct Region {
  Int3 lo, hi;
  SH_HD constexpr Int3 extent() const { return {hi.x - lo.x, hi.y - lo.y, hi.z - lo.z}; }
  SH_HD constexpr long long size() const {
    return empty() ? 0 : (long long)(hi.x - lo.x) * (hi.y - lo.y) * (hi.z - lo.z);
  }
  SH_HD constexpr bool empty() const { return hi.x <= lo.x || hi.y <= lo.y || hi.z <= lo.z; }
};

// Where on the staggered cell a field's values live. A value of location L stored at index i lives
// at x = x0 + (i + s) dx with s = 1/2 on axes where L is cell-centred and s = 0 where it is
// staggered (faces sit on the low side of their cell).
enum class Location { cell, face_x, face_y, face_z, edge_xy, edge_xz, edge_yz, node };

// True where `loc` sits on cell faces (not centres) along `axis`.
constexpr bool staggered(Location loc, int axis) {
  switch (loc) {
    case Location::cell:
      return false;
    case Location::face_x:
      return axis == 0;
    case Location::face_y:
      return axis == 1;
    case Location::face_z:
      return axis == 2;
    case Location::edge_xy:
      return axis != 2;
    case Location::edge_xz:
      return axis != 1;
    case Location::edge_yz:
      return axis != 0;
    case Location::node:
      return true;
  }
  return false;
}

std::string to_string(Location loc);

}  // namespace staghorn
