#pragma once
// The MHD stage on the CPU, pencil by pencil: each thread takes whole rows (j, k) of the region
// (OpenMP, static schedule over (k, j) as core/for_each.hpp's loop, so that a thread computes the
// rows it first touched) and cuts them into segments of kWidth cells along x. For a segment it
//  1. gathers every variable in a loop of its own along x: the generic kernel's gather() per cell
//     (operators.hpp's derivatives, each computed once), stored into a Row, Local's members as
//     arrays over the segment (a few KB, in L1);
//  2. evaluates the thermodynamics (exponentials) and the forcing (sine, cosine) in scalar loops;
//  3. evaluates rates() and the 2N update() per cell from the Row.
// Steps 1 and 3 have unit-stride loads and no calls, so the compiler vectorises them across cells;
// the generic kernel's one cell per iteration (every variable's gather, the exponentials, the
// update) does not vectorise. Each cell's arithmetic is the generic kernel's, expression for
// expression and in the same order, so the two give the same bits wherever the compiler
// contracts alike (mhd_parity_test), and a cell's result does not depend on the rows or segments
// it falls in (rank counts, the boundary shell).

#include "core/geometry.hpp"
#include "models/mhd/kernels.hpp"

namespace staghorn::mhd {

// One stage on region r of the CPU backend, any order and dimension (inactive axes have stride 0).
// Instantiated in pencil.cpp for orders 2, 4, 6, 8, with and without entropy: compiled by the C++
// compiler in every build (its CPU clones are gcc attributes, which nvcc's front end does not
// take).
// wrap: as launch_tiled's (tiled.hpp), the extents of the axes along which the kernel also writes
// each new value into the halo cells that are its periodic images (one rank: no exchange).
template <int Order, bool Entropy>
void run_pencils(const StageArgs& a, const Region& r, Int3 wrap = {0, 0, 0});

extern template void run_pencils<2, false>(const StageArgs&, const Region&, Int3);
extern template void run_pencils<2, true>(const StageArgs&, const Region&, Int3);
extern template void run_pencils<4, false>(const StageArgs&, const Region&, Int3);
extern template void run_pencils<4, true>(const StageArgs&, const Region&, Int3);
extern template void run_pencils<6, false>(const StageArgs&, const Region&, Int3);
extern template void run_pencils<6, true>(const StageArgs&, const Region&, Int3);
extern template void run_pencils<8, false>(const StageArgs&, const Region&, Int3);
extern template void run_pencils<8, true>(const StageArgs&, const Region&, Int3);

}  // namespace staghorn::mhd
