// The Stokes tiled kernel's march length by card (march_planes_for): the two cards it was
// measured on get the length that ran fastest there (docs/kernels.md), from the memory clock, bus
// width and SM count that CUDA reports for them.
#include "models/stokes/tiled_shapes.hpp"

#include <gtest/gtest.h>

namespace staghorn::stokes::tiled {
namespace {

TEST(TiledShapes, TheMeasuredCardsGetTheirFastestMarches) {
  // H100 SXM: HBM3 at 2619 MHz on a 5120-bit bus, 132 SMs: 3.35 TB/s, 25.4 GB/s per SM.
  const double h100 = dram_bandwidth_per_sm(2619000, 5120, 132);
  EXPECT_NEAR(h100 * 132, 3.35e12, 0.01e12);
  EXPECT_EQ(march_planes_for(h100), 8);
  // H200: HBM3e at 3201 MHz on a 6144-bit bus, 132 SMs: 4.92 TB/s, 37.2 GB/s per SM.
  const double h200 = dram_bandwidth_per_sm(3201000, 6144, 132);
  EXPECT_NEAR(h200 * 132, 4.92e12, 0.01e12);
  EXPECT_EQ(march_planes_for(h200), 16);
}

TEST(TiledShapes, TheDefaultShapeTakesTheCardsMarches) {
  EXPECT_EQ(kShapes[0].chunk, 0);  // 0: march_planes_for on the device at hand
  for (int s = 1; s < kShapeCount; ++s) EXPECT_GT(kShapes[s].chunk, 0) << "shape " << s;
}

}  // namespace
}  // namespace staghorn::stokes::tiled
