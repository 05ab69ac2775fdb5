#pragma once
// The fields of the staggered-Stokes module: velocities on the faces, deviatoric stresses at the
// centres (normal) and on the edges (shear), in the order the kernels' State lists them.

#include <array>
#include <string>
#include <vector>

#include "core/field.hpp"

namespace staghorn::stokes {

// What output fields say about themselves; scratch fields (new values, starting values) carry none.
struct FieldText {
  std::string velocity_units, stress_units;
  std::string velocity_name = "velocity";  // "velocity along x", ...
};

// Vx, Vy, Vz named prefix + axis; described by `text` when it is given.
std::array<Field, 3> velocity_fields(const std::string& prefix, const Layout& l, Backend b,
                                     const FieldText* text = nullptr);
// tau_xx, tau_yy, tau_zz, tau_xy, tau_xz, tau_yz named prefix + component.
std::array<Field, 6> stress_fields(const std::string& prefix, const Layout& l, Backend b,
                                   const FieldText* text = nullptr);

// The stress components of a dims-dimensional run: xx (1-D); xx, yy, xy (2-D); all six (3-D).
std::vector<int> stress_components(int dims);

}  // namespace staghorn::stokes
