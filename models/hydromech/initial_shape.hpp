#pragma once
// What both hydro-mechanical variants read from hydromech.initial: the porosity's shape (a
// Gaussian blob, or the 1-D solitary wave of the given amplitude), evaluated on the host at cell
// centres.

#include <string>

#include "core/grid.hpp"
#include "io/schema.hpp"
#include "models/hydromech/background_porosity.hpp"
#include "models/hydromech/physics.hpp"

namespace staghorn::hydromech {

struct InitialShape {
  std::string type;
  real amplitude;
  real center[3], sig[3];  // the blob's centre and widths per axis

  InitialShape(const io::json& ic, const Grid& g);
  // Fills d with the offsets of global cell idx from the centre (periodic axes wrapped to the
  // nearest image) and returns the blob's scaled squared radius.
  real offset(const Grid& g, const int idx[3], real d[3]) const;
};

// The coordinates of global cell idx's centre.
std::array<real, 3> cell_centre(const Grid& g, const int idx[3]);

// The solitary wave's assumptions on the material (n = 3, m = 0, R = 1, amplitude > 1, a uniform
// background porosity), checked with the keys that break them named.
void require_solitary_wave(const Material& m, real amplitude, const BackgroundPorosity& b);

}  // namespace staghorn::hydromech
