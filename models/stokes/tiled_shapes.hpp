#pragma once
// The launch shapes of the tiled CUDA iteration (models/stokes/tiled.hpp), in a header any
// compiler reads (benchmarks list them).

#include <iterator>

#include "models/staggered_stokes/tiled_shape.hpp"

namespace staghorn::stokes::tiled {

// Launch shapes the kernel is compiled for (128 registers either way: the next plane's 13 values
// wait in registers; 16 cells along z: more blocks, shorter marches, beats 32 or 64). Shape 0 is
// the default: 34 x 15 threads, one block per SM, a 32 x 13 tile whose rows store whole 32-byte
// sectors and which loads 1.23 columns per tile cell (32 x 8 threads: 1.42, rows starting
// mid-sector). Benchmarks compare the others (bench_stokes_kernels, docs/kernels.md): the
// default's threads with marches of 12 planes (the same kernel, more and shorter marches) tell
// whether 16 still suits the card at hand.
constexpr Shape kShapes[] = {{34, 15, 1, 16}, {32, 8, 2, 16}, {34, 15, 1, 12}};
constexpr int kShapeCount = static_cast<int>(std::size(kShapes));

}  // namespace staghorn::stokes::tiled
