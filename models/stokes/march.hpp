#pragma once
// One 3-D PT iteration of the Stokes model on the CPU that computes each new value once
// (stokes.kernel = tiled on the CPU; march.cpp). The generic kernel recomputes, at each cell, the
// new pressure and stresses of the neighbours its three faces need (P four times, every stress
// twice); this one keeps them in row buffers, as the tiled CUDA kernel (tiled.hpp) keeps them in
// shared memory. Each thread takes the rows (j, k) of the region that a static schedule of the
// (k, j) loop gives it (where core/memory.cpp's first touch placed their pages), cuts its whole
// planes into tiles of rows along y and marches each tile along z. At plane k of a tile it
//  1. updates P and the normal stresses of the tile's cells (and of the row below and the cell
//     west of each row: the faces' neighbours, not stored) and keeps the total normal stresses;
//  2. updates tau_xy on the low edges of plane k, tau_xz and tau_yz on those of plane k + 1 (kept
//     for the next plane: each value once, except the tile's rims);
//  3. updates the three low-face velocities of its cells from the kept values.
// Each step is a loop along x with unit-stride loads and no calls, vectorised across cells. Every
// value comes from the generic kernel's own operators (Pseudo<3>::P_new, Txx_new ..., vdt_face,
// momentum_x_of ... of models/staggered_stokes/kernels.hpp), so the two give the same bits
// (stokes_march_parity_test) and a cell's result does not depend on the tile it falls in (rank
// counts, the boundary shell). The shear stresses on the high walls are left to WallEdges, as for
// the generic kernel.

#include "core/geometry.hpp"
#include "models/staggered_stokes/kernels.hpp"

namespace staghorn::stokes {

// The iteration of ps into out over region r, on the calling process's OpenMP threads. Compiled by
// the C++ compiler in every build (march.cpp: its CPU clones are gcc attributes, which nvcc's front
// end does not take). tile_rows: rows per tile, 0 for the default (from the L2 size; tests pass
// small ones, to cut planes into many tiles).
void run_march(const Pseudo<3>& ps, const State& out, const Region& r, int tile_rows = 0);

}  // namespace staghorn::stokes
