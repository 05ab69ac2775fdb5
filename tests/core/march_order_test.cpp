// MarchOrder (core/marches.hpp): the order in which a tiled kernel's blocks take their places.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/marches.hpp"

namespace staghorn {
namespace {

struct Case {
  int tiles_x, tiles_y, layers, group;
};

// The block that takes each (tile, layer) place.
std::vector<int> block_of(const MarchOrder& o) {
  std::vector<int> block(static_cast<std::size_t>(o.blocks()), -1);
  for (int b = 0; b < o.blocks(); ++b) {
    const MarchOrder::Place p = o.place(b);
    EXPECT_GE(p.x, 0);
    EXPECT_LT(p.x, o.tiles_x);
    EXPECT_GE(p.y, 0);
    EXPECT_LT(p.y * o.tiles_x + p.x, o.tiles);
    EXPECT_GE(p.layer, 0);
    EXPECT_LT(p.layer, o.layers);
    int& at = block[static_cast<std::size_t>(p.layer) * o.tiles + p.y * o.tiles_x + p.x];
    EXPECT_EQ(at, -1) << "place taken twice, by blocks " << at << " and " << b;
    at = b;
  }
  return block;
}

TEST(MarchOrder, EveryPlaceIsTakenByExactlyOneBlock) {
  for (const Case c : {Case{8, 20, 16, 0}, Case{8, 20, 16, 132}, Case{8, 20, 16, 160},
                       Case{8, 20, 16, 500}, Case{4, 10, 16, 132}, Case{3, 5, 7, 4},
                       Case{3, 5, 7, 1}, Case{1, 1, 1, 132}, Case{5, 3, 1, 4}}) {
    const MarchOrder o{c.tiles_x, c.tiles_x * c.tiles_y, c.layers, c.group};
    for (const int b : block_of(o)) EXPECT_GE(b, 0);
  }
}

TEST(MarchOrder, WithoutGroupsLayerFollowsLayer) {
  const MarchOrder o{8, 160, 16, 0};
  const std::vector<int> block = block_of(o);
  for (int layer = 0; layer < 16; ++layer)
    for (int tile = 0; tile < 160; ++tile) EXPECT_EQ(block[layer * 160 + tile], layer * 160 + tile);
}

// In a group of G tiles the march above a tile's march starts G blocks later (about when the one
// below ends, with G blocks resident), and a layer's tiles of a group are consecutive blocks.
TEST(MarchOrder, AGroupsMarchesFollowTheirColumnsOneResidentSetLater) {
  for (const Case c : {Case{8, 20, 16, 132}, Case{3, 5, 7, 4}, Case{5, 3, 4, 2}}) {
    const int tiles = c.tiles_x * c.tiles_y;
    const MarchOrder o{c.tiles_x, tiles, c.layers, c.group};
    const std::vector<int> block = block_of(o);
    for (int tile = 0; tile < tiles; ++tile) {
      const int first = tile / c.group * c.group;
      const int size = std::min(c.group, tiles - first);
      for (int layer = 0; layer + 1 < c.layers; ++layer)
        EXPECT_EQ(block[(layer + 1) * tiles + tile] - block[layer * tiles + tile], size)
            << "tile " << tile << " layer " << layer;
      if (tile > first) EXPECT_EQ(block[tile] - block[tile - 1], 1) << "tile " << tile;
    }
  }
}

}  // namespace
}  // namespace staghorn
