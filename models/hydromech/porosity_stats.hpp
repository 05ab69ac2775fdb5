#pragma once
// What the diagnostics of both hydro-mechanical variants say about the porosity, reduced over all
// ranks in a fixed order (the same on any rank count).

#include <optional>

#include "core/decomposition.hpp"
#include "core/field.hpp"
#include "io/schema.hpp"

namespace staghorn::hydromech {

struct PorosityStats {
  real fluid = 0;            // int phi dV
  real phi_max = 0;          // max phi
  real peak_height = 0;      // height (along `up`) of the cell holding phi_max
  real excess_centroid = 0;  // height of the centroid of phi - phi_ref where positive (0 if none)
};

PorosityStats porosity_stats(const Exec& ex, const Decomposition& dec, const Field& phi,
                             real phi_ref, int up);

// What the chimney diagnostics call the chimney (hydromech.chimney).
struct ChimneyOptions {
  std::optional<real> threshold;  // the porosity that counts as chimney (none: 2 phi0)
  std::optional<real> base;       // the height its width is measured above (none: the bottom)
  static void add_to(io::Schema& schema);
  static ChimneyOptions from(const io::json& config);
};

struct ChimneyStats {
  // The top, along `up`, of the first run of planes from base upwards holding phi >= threshold,
  // interpolated to where the planes' maximum falls through it (none: base).
  real front = 0;
  real width = 0;  // its width halfway between base and front (below)
};

// The chimney's front and its width in the plane of cells holding base + (front - base) / 2: 2-D
// the length of the cells with phi >= threshold there, 3-D the diameter of a disc of their area
// (2 sqrt(A / pi)), 1-D 0.
ChimneyStats chimney_stats(const Exec& ex, const Decomposition& dec, const Field& phi,
                           real threshold, real base, int up);

// max |f| over the interiors of all ranks.
real max_magnitude(const Exec& ex, const Decomposition& dec, const Field& f);

}  // namespace staghorn::hydromech
