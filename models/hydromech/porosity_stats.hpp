#pragma once
// What the diagnostics of both hydro-mechanical variants say about the porosity, reduced over all
// ranks in a fixed order (the same on any rank count).

#include "core/decomposition.hpp"
#include "core/field.hpp"

namespace staghorn::hydromech {

struct PorosityStats {
  real fluid = 0;            // int phi dV
  real phi_max = 0;          // max phi
  real peak_height = 0;      // height (along `up`) of the cell holding phi_max
  real excess_centroid = 0;  // height of the centroid of phi - phi_ref where positive (0 if none)
};

PorosityStats porosity_stats(const Exec& ex, const Decomposition& dec, const Field& phi,
                             real phi_ref, int up);

// max |f| over the interiors of all ranks.
real max_magnitude(const Exec& ex, const Decomposition& dec, const Field& f);

}  // namespace staghorn::hydromech
