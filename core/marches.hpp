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

// The order in which a tiled kernel's blocks take their (tile, march) places. The hardware starts
// blocks in index order. Layer after layer over all tiles (group 0), the march above a column's
// march starts a whole layer of tiles later: where a layer holds more tiles than the device holds
// blocks, the planes the two share (the lower one's last, the upper one's first) have left the L2
// by then. With `group` tiles per group (the device's resident blocks), a group's tiles take one
// layer after another: each march starts about when the one below it ends, and neighbouring tiles
// still march side by side (their rims shared through the L2). The last group may be smaller.
struct MarchOrder {
  int tiles_x, tiles, layers, group;
  struct Place {
    int x, y, layer;
  };
  SH_HD Place place(int b) const {
    int g = 0, within = b, size = tiles;
    if (group > 0 && group < tiles) {
      g = b / (group * layers);
      within = b - g * group * layers;
      size = tiles - g * group < group ? tiles - g * group : group;
    }
    const int tile = g * group + within % size;
    return {tile % tiles_x, tile / tiles_x, within / size};
  }
  // The kernel's grid: one block per (tile, march).
  SH_HD int blocks() const { return tiles * layers; }
};

}  // namespace staghorn
