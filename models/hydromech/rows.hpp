#pragma once
// The reduced model's PT iteration on the CPU, row by row (hydromech.kernel = rows, the CPU's
// automatic choice; rows.cpp). The generic kernel evaluates phi(Pe) and k(phi) at each of its 7
// stencil points (7 exp and, with a smoothed switch, 7 tanh per cell) and each face's flux twice;
// this one
//  - evaluates phi(Pe) and k(phi) once per cell, a plane ahead: each thread marches y tiles of its
//    rows along z and keeps the porosity and permeability of planes k and k + 1 of the tile and
//    of the row on either side of it (the y faces' neighbours);
//  - computes each face once: x faces in a loop of their own before the row's update loop, y faces
//    handed from row j to row j + 1 through a row buffer, z faces from plane k to plane k + 1
//    through a tile buffer;
//  - takes the pseudo-step without pt::optimal_step's large-a branch (a division in every lane):
//    the cells that need it (only non-finite values reach it in this model) are done again after
//    their row from the values the row kept.
// Every value comes from the generic kernel's own functions (Material::porosity,
// Coefficients::face, add_faces, add_cell, step_arguments of kernels.hpp; pt_update.hpp) with the
// same operands in the same order and no FMA contraction, so both give the same bits
// (hydromech_rows_parity_test) whatever tile, thread or rank a cell falls in. The loops are
// compiled for AVX-512, AVX2 and the x86-64 baseline and chosen on the running CPU. Traffic: Pe,
// phi_old and dPe/dtau read, Pe_new and dPe/dtau written, 40 bytes per cell as the generic kernel
// (no stored porosity array).

#include "core/field.hpp"
#include "core/geometry.hpp"
#include "models/hydromech/boundary.hpp"
#include "models/hydromech/kernels.hpp"

namespace staghorn::hydromech {

// One iteration of region r, Pe -> Pe_new (dPe/dtau updated), on the CPU backend: OpenMP threads
// take the (k, j) rows that schedule(static) gives them, as for_each does (first-touch placement).
// Where a row of r ends on a physical x side, Pe_new's ghosts beyond it are filled by `ghosts`
// (the values fill_ghosts gives them) while the row is in cache.
// N: the permeability exponent when compiled in (3), else -1. Compiled by the C++ compiler in
// every build (its CPU clones are gcc attributes, which nvcc's front end does not take).
template <int Dim, int N>
void iterate_rows(const Coefficients& co, const View& Pe, const View& phi_old, const View& Pe_new,
                  const View& dPedtau, const RowEndGhosts& ghosts, const Region& r);

// The max-norm of the residual over region r on the CPU backend, as the generic kernel's
// reduction gives it (CellResidual: the same bits; NaN where some cell's residual is NaN).
template <int Dim, int N>
real max_abs_residual_rows(const Coefficients& co, const View& Pe, const View& phi_old,
                           const Region& r);

// The residual R of every cell of region r into field R on the CPU backend (CellResidual's R with
// weight 1: the same bits).
template <int Dim, int N>
void residual_rows(const Coefficients& co, const View& Pe, const View& phi_old, const View& R,
                   const Region& r);

// The (dimension, exponent) pairs compiled: declared here, instantiated in rows.cpp.
#define STAGHORN_HYDROMECH_ROWS_EACH(X) X(1, -1) X(1, 3) X(2, -1) X(2, 3) X(3, -1) X(3, 3)

#define STAGHORN_HYDROMECH_ROWS(Dim, N)                                                     \
  extern template void iterate_rows<Dim, N>(const Coefficients&, const View&, const View&,  \
                                            const View&, const View&, const RowEndGhosts&,  \
                                            const Region&);                                 \
  extern template real max_abs_residual_rows<Dim, N>(const Coefficients&, const View&,      \
                                                     const View&, const Region&);           \
  extern template void residual_rows<Dim, N>(const Coefficients&, const View&, const View&, \
                                             const View&, const Region&);
STAGHORN_HYDROMECH_ROWS_EACH(STAGHORN_HYDROMECH_ROWS)
#undef STAGHORN_HYDROMECH_ROWS

}  // namespace staghorn::hydromech
