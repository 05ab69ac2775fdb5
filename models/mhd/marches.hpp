#pragma once
// How the tiled MHD kernel (tiled.hpp) cuts a region's columns into marches along z (Chunks,
// core/marches.hpp). Plain C++ so that the plan can be tested without a GPU.
//
// One block fills an SM (its registers), so blocks run in waves of one per SM. Marches of one
// length leave the last wave's idle share at every length; one long march per column and short
// ones last fill it. A march spends 2R planes on its start (docs/kernels.md, MHD),
// so the short ones are kept as long as that filling needs.
#include "core/marches.hpp"

namespace staghorn::mhd::tiled {

// Cells along z per block of one length: the longer march where the grid still fills the device
// at least kLongChunkWaves times over; kAutoChunk asks for the plan below.
constexpr int kChunk = 64, kLongChunk = 128, kLongChunkWaves = 3, kAutoChunk = 0;
// A long march per column and a short tail: where the columns alone fill the device at least
// kSplitWaves times and the region is at least kSplitMinDepth deep; the tail is at least
// kMinTail cells, at most a quarter of the depth, and kTailMargin times the cells that would
// fill the idle share of the long marches' last wave.
constexpr double kSplitWaves = 1.5, kTailMargin = 2;
constexpr int kSplitMinDepth = 128, kMinTail = 16;

// The plan for `columns` columns of tiles nz cells deep on a device of `sms` SMs.
inline Chunks plan_marches(long long columns, int nz, int sms) {
  const double waves = static_cast<double>(columns) / sms;
  if (waves < kSplitWaves || nz < kSplitMinDepth) {
    const long long long_blocks = columns * ((nz + kLongChunk - 1) / kLongChunk);
    const bool fills = long_blocks >= static_cast<long long>(kLongChunkWaves) * sms;
    return Chunks::uniform(fills ? kLongChunk : kChunk);
  }
  // The idle share of the last wave of long marches, and the tail that fills it kTailMargin
  // times over (its own length shortens the long march: a few rounds settle it).
  const double idle = static_cast<double>((columns + sms - 1) / sms) - waves;
  int tail = kMinTail;
  for (int round = 0; round < 4; ++round) {
    const double fill = kTailMargin * idle * (nz - tail) / waves;
    const int t = (static_cast<int>(fill) + 7) / 8 * 8;
    tail = t < kMinTail ? kMinTail : (t > nz / 4 ? nz / 4 : t);
  }
  return {nz - tail, 1, tail};
}

}  // namespace staghorn::mhd::tiled
