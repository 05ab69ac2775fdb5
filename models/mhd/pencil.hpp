#pragma once
// The MHD stage on the CPU, pencil by pencil (mhd.kernel = tiled on the CPU; pencil.cpp). Each
// thread takes the rows (j, k) of the region that a static schedule of the (k, j) loop gives it
// (where core/memory.cpp's first touch placed their pages), walks them in y tiles marching along z
// (z neighbours then come from L2), and cuts each row into segments of 32 cells along x. For a
// segment it
//  1. gathers every variable in a loop of its own along x: the generic kernel's gather() per cell
//     (operators.hpp's derivatives, each computed once), stored into a Row, Local's members as
//     arrays over the segment (~15 KB, in L1);
//  2. evaluates the thermodynamics (exponentials) and the forcing (sine, cosine) in a scalar loop;
//  3. evaluates rates() and the 2N update() per cell from the Row.
// Steps 1 and 3 have unit-stride loads and no calls, so the compiler vectorises them across cells;
// the generic kernel's one cell per iteration (every variable's gather, the exponentials, the
// update) does not vectorise. Each cell's arithmetic is the generic kernel's, expression for
// expression and in the same order, and nothing is contracted into FMAs, so the two give the same
// bits (mhd_pencil_parity_test) and a cell's result does not depend on the rows or segments it
// falls in (rank counts, the boundary shell). Along the axes held by one rank it also writes the
// periodic halo images.

#include "core/geometry.hpp"
#include "models/mhd/kernels.hpp"

namespace staghorn::mhd {

// One stage on region r of the CPU backend, any order and dimension (inactive axes have stride 0).
// Instantiated in pencil.cpp for orders 2, 4, 6, 8, with and without entropy: compiled by the C++
// compiler in every build (its CPU clones are gcc attributes, which nvcc's front end does not
// take).
// wrap: as launch_tiled's (tiled.hpp), the extents of the axes along which the kernel also writes
// each new value into the halo cells that are its periodic images (no exchange along them).
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
