#pragma once
// How the tiled MHD kernel (tiled.hpp) cuts a region's columns into marches along z: the block
// of z-index b marches through length(b) cells from begin(b) (relative to the region's low z).
// Plain C++ so that the plan can be tested without a GPU.
//
// One block fills an SM (its registers), so blocks run in waves of one per SM, and a grid whose
// last wave leaves SMs idle loses that share of a wave. Marches of one length leave that share
// idle at every length. Long marches first and short ones last fill it: the hardware starts the
// blocks in index order, so the short marches land on the SMs that the long ones leave free at
// the end (largest jobs first). A march spends 2R planes on its start (docs/kernels.md, MHD),
// so the short ones are kept as long as that filling needs.
#include "core/platform.hpp"

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

// `count` marches of `first` cells, then marches of `rest` cells.
struct Chunks {
  int first, count, rest;
  static constexpr Chunks uniform(int chunk) { return {chunk, 0, chunk}; }
  SH_HD int begin(int b) const { return b < count ? b * first : count * first + (b - count) * rest; }
  SH_HD int length(int b) const { return b < count ? first : rest; }
  // Blocks along z for a region nz cells deep.
  int blocks(int nz) const {
    const int head = count * first < nz ? count : (nz + first - 1) / first;
    return head + (nz - head * first + rest - 1) / rest;
  }
};

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
