#pragma once
// Boundary conditions of the effective pressure, through ghost cells (after the halo exchange).

#include <array>
#include <string>

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

// Fills the ghosts of Pe on this rank's physical sides; `body` is the buoyancy per axis.
void apply_pe_boundaries(const Exec& ex, const Decomposition& dec, Field& Pe, const PeBcs& bcs,
                         const real body[3], Lane lane = Lane::inner);

}  // namespace staghorn::hydromech
