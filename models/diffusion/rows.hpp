#pragma once
// The diffusion PT iteration on the CPU, row by row (diffusion.kernel = rows; rows.cpp). The
// generic kernel computes each face's term (kernels.hpp's face_term) twice, once for each of the
// face's cells, and the pseudo-step's large-a division in every vector lane; this one computes
// each face's term once:
//  - x faces: one loop over the row's n + 1 faces before the row's update loop reads them;
//  - y faces: the update of row j stores its north terms, which row j + 1 reads as its south ones;
//  - z faces: each thread marches y tiles of its rows along z, and row (j, k) stores its top terms
//    in a tile buffer, which row (j, k + 1) reads as its bottom ones.
// The update loop computes the pseudo-steps without large_a_dtau (pt_update.hpp), from the single
// precision arguments where the exponent is whole; a row where some cell needs the large-a branch
// or the double arguments is done again by the generic kernel. The row is compiled for AVX-512,
// AVX2 and the x86-64 baseline and chosen on the running CPU. Every value is the generic kernel's,
// by the same functions (kernels.hpp's face_term, Star, Coefficients, pt_update.hpp) with their
// arguments in the same order and no FMA contraction, so both give the same bits
// (diffusion_rows_parity_test), whatever the rows, tiles or threads a cell falls in.

#include "core/field.hpp"
#include "core/geometry.hpp"
#include "models/diffusion/kernels.hpp"

namespace staghorn::diffusion {

// One iteration of region r, H -> H_new (dHdtau updated), on the CPU backend: OpenMP threads take
// the (k, j) rows that schedule(static) gives them, as for_each does (first-touch placement).
// N: the exponent when compiled in (0, 3), else -1. Compiled by the C++ compiler in every build.
template <int Dim, int N>
void iterate_rows(const Coefficients& co, const View& H, const View& H_old, const View& H_new,
                  const View& dHdtau, const Region& r);

// The max-norm of the residual over region r on the CPU backend, as the generic kernel's
// reduction gives it (the same bits; NaN where some cell's residual is NaN), vectorised along rows.
template <int Dim, int N>
real max_abs_residual_rows(const Coefficients& co, const View& H, const View& H_old,
                           const Region& r);

// The (dimension, exponent) pairs compiled: declared here, instantiated in rows.cpp.
#define STAGHORN_DIFFUSION_ROWS_EACH(X) \
  X(1, -1) X(1, 0) X(1, 3) X(2, -1) X(2, 0) X(2, 3) X(3, -1) X(3, 0) X(3, 3)

#define STAGHORN_DIFFUSION_ROWS(Dim, N)                                                    \
  extern template void iterate_rows<Dim, N>(const Coefficients&, const View&, const View&, \
                                            const View&, const View&, const Region&);      \
  extern template real max_abs_residual_rows<Dim, N>(const Coefficients&, const View&,     \
                                                     const View&, const Region&);
STAGHORN_DIFFUSION_ROWS_EACH(STAGHORN_DIFFUSION_ROWS)
#undef STAGHORN_DIFFUSION_ROWS

}  // namespace staghorn::diffusion
