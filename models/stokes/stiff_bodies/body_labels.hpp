#pragma once
// The stiff bodies of a viscosity field (docs/models/stiff-bodies.md): each connected
// region of cells stiffer than a seed threshold, grown over the cells around it whose pseudo-step
// viscosity (mu_max, the largest viscosity of the cell's 3^d neighbourhood) exceeds a lower
// threshold, each such cell joining the nearest seed (a smoothed viscosity field links nearby
// inclusions by rims that are stiff against the matrix but far softer than the inclusions: they
// are split between them). Each body then gets its own rigid-mode correction (rigid_body.hpp). The
// labels are global cell indices propagated by a minimum over face neighbours, so every rank count
// and backend finds the same bodies with the same ids.

#include <functional>
#include <vector>

#include "core/backend.hpp"
#include "core/decomposition.hpp"
#include "core/field.hpp"

namespace staghorn::stokes {

struct StiffBody {
  real id;         // the label of its cells: 1 + the global linear index of its first cell
  Int3 lo, hi;     // its box in global cells (hi exclusive)
  real mu_peak;    // its largest cell viscosity
  unsigned walls;  // bit s: its solid part reaches wall s (x_lo, x_hi, y_lo, y_hi, z_lo, z_hi)
};

// Writes into `label` (a cell field; halos exchanged, ghosts beyond walls 0) the id of the body
// each cell belongs to, 0 outside every body: seeds are cells with mu > seed, grown over cells
// with mu_max > threshold; a body's walls are those its cells with mu > solid reach. Returns the
// bodies that do not wrap around a periodic axis (they would have no single centre), in ascending
// id, the same list on every rank. `exchange` fills a cell field's halos.
std::vector<StiffBody> label_stiff_bodies(const Decomposition& dec, Exec ex, const Field& mu,
                                          const Field& mu_max, real seed, real threshold,
                                          real solid, Field& label,
                                          const std::function<void(Field&)>& exchange);

}  // namespace staghorn::stokes
