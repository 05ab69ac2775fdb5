#include "core/geometry.hpp"

namespace staghorn {

std::string to_string(Location loc) {
  switch (loc) {
    case Location::cell:
      return "cell";
    case Location::face_x:
      return "face_x";
    case Location::face_y:
      return "face_y";
    case Location::face_z:
      return "face_z";
    case Location::edge_xy:
      return "edge_xy";
    case Location::edge_xz:
      return "edge_xz";
    case Location::edge_yz:
      return "edge_yz";
    case Location::node:
      return "node";
  }
  return "unknown";
}

}  // namespace staghorn
