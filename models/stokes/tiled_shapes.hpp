#pragma once
// The launch shapes of the tiled CUDA iteration (models/stokes/tiled.hpp), in a header any
// compiler reads (benchmarks list them).

#include <iterator>

#include "models/staggered_stokes/tiled_shape.hpp"

namespace staghorn::stokes::tiled {

// Launch shapes the kernel is compiled for (128 registers either way: the next plane's 13 values
// wait in registers). Shape 0 is the default: 34 x 15 threads, one block per SM, a 32 x 13 tile
// whose rows store whole 32-byte sectors and which loads 1.23 columns per tile cell (32 x 8
// threads: 1.42, rows starting mid-sector). Its marches (chunk 0) are the card's
// (march_planes_for_device, tiled.hpp): the marches are taken in groups of resident blocks
// (MarchOrder), so the planes a march shares with the one below it come from the L2; where the L2
// keeps up with the memory, shorter marches, and so more blocks, cost little, and where the memory
// outruns it, longer marches read it less. Benchmarks compare the others (bench_stokes_kernels,
// docs/kernels.md): the default's threads with marches of 16, 12 and 8 planes (the same kernel,
// fewer or more marches) tell whether the card's choice still suits it.
constexpr Shape kShapes[] = {
    {34, 15, 1, 0}, {32, 8, 2, 16}, {34, 15, 1, 16}, {34, 15, 1, 12}, {34, 15, 1, 8}};
constexpr int kShapeCount = static_cast<int>(std::size(kShapes));

}  // namespace staghorn::stokes::tiled
