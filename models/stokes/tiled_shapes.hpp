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
// (march_planes_for, below): the marches are taken in groups of resident blocks
// (MarchOrder), so the planes a march shares with the one below it come from the L2; where the L2
// keeps up with the memory, shorter marches, and so more blocks, cost little, and where the memory
// outruns it, longer marches read it less. Benchmarks compare the others (bench_stokes_kernels,
// docs/kernels.md): the default's threads with marches of 32, 24, 16, 12 and 8 planes (the same
// kernel, fewer or more marches) tell whether the card's choice still suits it.
constexpr Shape kShapes[] = {
    {34, 15, 1, 0}, {32, 8, 2, 16}, {34, 15, 1, 16}, {34, 15, 1, 12}, {34, 15, 1, 8},
    {34, 15, 1, 24}, {34, 15, 1, 32}};
constexpr int kShapeCount = static_cast<int>(std::size(kShapes));

// A card's peak DRAM bandwidth per SM in bytes per second (two transfers per memory clock over
// the whole bus), from its memory clock (kHz), bus width (bits) and SMs: how fast memory feeds
// each SM against what its slice of the L2 serves.
constexpr double dram_bandwidth_per_sm(double clock_khz, int bus_bits, int sms) {
  return 2 * 1e3 * clock_khz * (bus_bits / 8.0) / sms;
}
// The default's march length on such a card: 16 planes where the memory feeds each SM faster
// than 30 GB/s (an H200: 37; its L2 then limits the kernel, and longer marches read the planes
// shared with their neighbours less often), else 8 (an H100: 25). Measured on those two cards
// (docs/kernels.md); between them the rule is a guess.
constexpr int march_planes_for(double bytes_per_s_per_sm) {
  return bytes_per_s_per_sm > 30e9 ? 16 : 8;
}

}  // namespace staghorn::stokes::tiled
