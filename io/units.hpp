#pragma once
#include <string>

namespace staghorn::io {

// The units a model computes in, written with every output. A dimensional model states SI units;
// a scaled one writes "1" and says in `scaling` what its unit quantities are, since "1" alone does
// not tell a reader what a value of 1 means.
struct UnitSystem {
  std::string length = "1";  // of coordinates (grid.units)
  std::string time = "1";    // of the model time
  std::string scaling;       // empty: SI units

  bool dimensional() const { return scaling.empty(); }
  // `long_name` of a quantity in these units, with the scaling when it is dimensionless.
  std::string describe(const std::string& long_name, const std::string& units) const {
    if (dimensional() || units != "1") return long_name;
    return long_name + " (dimensionless: " + scaling + ")";
  }
};

// The global attribute `staghorn_units` of outputs: "SI", or "dimensionless: " and the scaling.
inline std::string units_name(const UnitSystem& u) {
  return u.dimensional() ? "SI" : "dimensionless: " + u.scaling;
}

}  // namespace staghorn::io
