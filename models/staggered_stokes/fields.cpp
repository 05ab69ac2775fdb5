#include "models/staggered_stokes/fields.hpp"

namespace staghorn::stokes {

std::array<Field, 3> velocity_fields(const std::string& prefix, const Layout& l, Backend b,
                                     const FieldText* text) {
  auto field = [&](int a, Location loc) {
    const std::string axis = a == 0 ? "x" : (a == 1 ? "y" : "z");
    return text ? Field(prefix + axis, loc, l, b, text->velocity_units,
                        text->velocity_name + " along " + axis)
                : Field(prefix + axis, loc, l, b);
  };
  return {field(0, Location::face_x), field(1, Location::face_y), field(2, Location::face_z)};
}

std::array<Field, 6> stress_fields(const std::string& prefix, const Layout& l, Backend b,
                                   const FieldText* text) {
  const char* comp[6] = {"xx", "yy", "zz", "xy", "xz", "yz"};
  const Location loc[6] = {Location::cell,    Location::cell,    Location::cell,
                           Location::edge_xy, Location::edge_xz, Location::edge_yz};
  auto field = [&](int c) {
    const std::string name = prefix + comp[c];
    return text ? Field(name, loc[c], l, b, text->stress_units,
                        std::string("deviatoric stress ") + comp[c])
                : Field(name, loc[c], l, b);
  };
  return {field(0), field(1), field(2), field(3), field(4), field(5)};
}

std::vector<int> stress_components(int dims) {
  switch (dims) {
    case 1:
      return {0};
    case 2:
      return {0, 1, 3};
    default:
      return {0, 1, 2, 3, 4, 5};
  }
}

}  // namespace staghorn::stokes
