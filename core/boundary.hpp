#pragma once
#include <array>
#include <string>

#include "core/decomposition.hpp"
#include "core/field.hpp"

namespace staghorn {

// Physical boundary conditions act through ghost cells: after the halo exchange, the ghosts of a
// bounded side are set so that the stencils need no special cases at the boundary.
enum class BcKind { dirichlet, neumann };

struct Bc {
  BcKind kind = BcKind::dirichlet;
  real value = 0;  // the boundary value (Dirichlet); Neumann is zero-gradient
};

BcKind parse_bc_kind(const std::string& name);
std::string to_string(BcKind kind);

// One condition per side, ordered x_lo, x_hi, y_lo, y_hi, z_lo, z_hi.
using SideBcs = std::array<Bc, 6>;

// Calls f(axis, side) (side 0: low, 1: high) for every side of this rank's block that is a physical
// boundary of the domain: an axis with ghosts (halo) that is not periodic, at the domain's edge.
template <class F>
void for_each_boundary_side(const Decomposition& dec, const Layout& l, F&& f) {
  for (int a = 0; a < 3; ++a) {
    if (l.h[a] == 0 || dec.grid().periodic[a]) continue;
    for (int side = 0; side < 2; ++side)
      if (side == 0 ? dec.at_low(a) : dec.at_high(a)) f(a, side);
  }
}

// Fills the ghosts of `f` on the sides of this rank's block that are physical boundaries.
// Axes are treated in order x, y, z across the whole padded extent of the others, so edges and
// corners are filled too. A Dirichlet value is imposed on the boundary itself: by a ghost mirrored
// across the face for cell-centred points, directly on the boundary face for staggered points.
void apply_boundaries(const Exec& ex, const Decomposition& dec, Field& f, const SideBcs& bcs,
                      Lane lane = Lane::inner);

}  // namespace staghorn
