#pragma once
// How a tiled GPU kernel's blocks cut a region's columns into marches along z: the block of z-index
// b marches through length(b) cells from begin(b) (relative to the region's low z). Plain C++, so
// that plans are tested without a GPU (the MHD kernel's: models/mhd/marches.hpp).
#include "core/platform.hpp"

namespace staghorn {

// `count` marches of `first` cells, then marches of `rest` cells.
struct Chunks {
  int first, count, rest;
  static constexpr Chunks uniform(int chunk) { return {chunk, 0, chunk}; }
  SH_HD int begin(int b) const {
    return b < count ? b * first : count * first + (b - count) * rest;
  }
  SH_HD int length(int b) const { return b < count ? first : rest; }
  // Blocks along z for a region nz cells deep.
  int blocks(int nz) const {
    const int head = count * first < nz ? count : (nz + first - 1) / first;
    return head + (nz - head * first + rest - 1) / rest;
  }
};

}  // namespace staghorn
