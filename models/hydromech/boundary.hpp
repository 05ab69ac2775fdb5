#pragma once
// Boundary conditions of the effective pressure, through ghost cells (after the halo exchange).

#include <array>
#include <string>

#include "core/boundary.hpp"
#include "core/decomposition.hpp"
#include "core/field.hpp"

namespace staghorn::hydromech {

// closed: no Darcy flux through the side (the ghost continues the gradient that cancels buoyancy);
// dirichlet: Pe = value on the side (fluid may leave or enter).
enum class PeBcKind { closed, dirichlet };

struct PeBc {
  PeBcKind kind = PeBcKind::closed;
  real value = 0;
};

// One per side: x_lo, x_hi, y_lo, y_hi, z_lo, z_hi.
using PeBcs = std::array<PeBc, 6>;

PeBcKind parse_pe_bc(const std::string& name);

// The ghost rules of Pe on each side (core/boundary.hpp); `body` is the buoyancy per axis.
SideRules pe_rules(const Grid& grid, const PeBcs& bcs, const real body[3]);

// Fills the ghosts of Pe on this rank's physical sides by those rules.
void apply_pe_boundaries(const Exec& ex, const Decomposition& dec, Field& Pe, const PeBcs& bcs,
                         const real body[3], Lane lane = Lane::inner);

// The ghost rules of Pe beyond the ends of the rows (x = -h .. -1 and n .. n + h - 1), for a kernel
// that fills them itself while it writes the rows (the rows kernel: the x sides' ghosts, one
// cache line per row, cost more in a pass of their own than the rest of the sides together).
struct RowEndGhosts {
  GhostRule lo, hi;  // GhostRule::keep where the side is not a physical boundary of this rank
  int n = 0, h = 0;  // the interior's and the halo's extent along x
};
RowEndGhosts pe_row_end_ghosts(const Decomposition& dec, const Layout& l, const PeBcs& bcs,
                               const real body[3]);

// apply_pe_boundaries but for the x sides, which a kernel filled by pe_row_end_ghosts' rules.
void apply_pe_boundaries_beyond_x(const Exec& ex, const Decomposition& dec, Field& Pe,
                                  const PeBcs& bcs, const real body[3]);

// The porosity beyond each open (dirichlet) side of this rank, on the first ghost layer, from the
// two cells inside: phi_g = phi_0^2 / phi_1 (linear in log phi, so positive), where f holds
// phi - offset. The Darcy flux through that side takes the mean of the two cells' permeabilities:
// with this ghost it is second-order accurate on the side. A ghost copied from the inside cell (or
// computed from zero-gradient ghosts of its arguments) makes it first order, and the fluid mass
// residual of the boundary cells O(1) (docs/models/hydromech.md, "Open sides").
void extrapolate_porosity_at_open_sides(const Exec& ex, const Decomposition& dec, Field& f,
                                        const PeBcs& bcs, real offset, Lane lane = Lane::inner);

}  // namespace staghorn::hydromech
