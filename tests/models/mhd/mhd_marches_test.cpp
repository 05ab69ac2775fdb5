// The tiled MHD kernel's plan of marches along z (models/mhd/marches.hpp): every plan covers the
// region's depth once, in marches that begin where the one before ended; where the columns fill
// the device at least 1.5 times over, one long march per column and a tail that fills the idle
// share of the long marches' last wave; elsewhere the uniform marches.
#include <gtest/gtest.h>

#include "models/mhd/marches.hpp"

namespace staghorn::mhd::tiled {
namespace {

void expect_covers(const Chunks& c, int nz) {
  const int blocks = c.blocks(nz);
  ASSERT_GT(blocks, 0);
  int end = 0;
  for (int b = 0; b < blocks; ++b) {
    EXPECT_EQ(c.begin(b), end) << "block " << b;
    EXPECT_GT(c.length(b), 0) << "block " << b;
    end = c.begin(b) + c.length(b);
  }
  EXPECT_GE(end, nz);
  EXPECT_LT(c.begin(blocks - 1), nz) << "a block past the region";
}

TEST(MhdMarches, EveryPlanCoversTheDepthOnce) {
  for (int sms : {16, 114, 132})
    for (long long columns : {1LL, 40LL, 64LL, 200LL, 256LL, 1024LL, 5000LL})
      for (int nz : {1, 7, 63, 64, 65, 127, 128, 200, 256, 250, 512, 1000}) {
        SCOPED_TRACE(testing::Message() << sms << " SMs, " << columns << " columns, nz " << nz);
        expect_covers(plan_marches(columns, nz, sms), nz);
      }
  expect_covers(Chunks::uniform(40), 100);
  expect_covers(Chunks{90, 1, 10}, 100);
  expect_covers(Chunks{30, 2, 20}, 100);
}

TEST(MhdMarches, ALongMarchAndATailWhereTheColumnsFillTheDevice) {
  const int sms = 132;
  for (const auto& [columns, nz] :
       {std::pair<long long, int>{256, 256}, {1024, 512}, {400, 300}, {256, 128}}) {
    SCOPED_TRACE(testing::Message() << columns << " columns, nz " << nz);
    const Chunks c = plan_marches(columns, nz, sms);
    ASSERT_EQ(c.count, 1);
    const int tail = nz - c.first;
    EXPECT_EQ(c.rest, tail);
    EXPECT_GE(tail, kMinTail);
    EXPECT_LE(tail, nz / 4);
    // The tails' cells cover the idle share of the long marches' last wave.
    const double waves = static_cast<double>(columns) / sms;
    const double idle = static_cast<double>((columns + sms - 1) / sms) - waves;
    EXPECT_GE(static_cast<double>(columns) * tail, idle * sms * c.first);
  }
  // The three measured on an H200 (docs/kernels.md, MHD): 256^3, 512^3 and 256 x 256 x 128,
  // whose 128-cell marches would not fill the device three times over.
  EXPECT_EQ(plan_marches(256, 256, sms).first, 240);
  EXPECT_EQ(plan_marches(1024, 512, sms).first, 480);
  EXPECT_EQ(plan_marches(256, 128, sms).first, 112);
}

TEST(MhdMarches, UniformMarchesWhereTheColumnsAreFew) {
  // 128^3 in 32 x 8 tiles: 64 columns; 128-cell marches would leave half the SMs idle.
  const Chunks small = plan_marches(64, 128, 132);
  EXPECT_EQ(small.count, 0);
  EXPECT_EQ(small.rest, kChunk);
  // Enough 128-cell marches for three waves, too few columns for a long march each.
  const Chunks deep = plan_marches(100, 512, 132);
  EXPECT_EQ(deep.count, 0);
  EXPECT_EQ(deep.rest, kLongChunk);
  // A shallow region with many columns: one 128-cell march per column (shorter than 128).
  const Chunks shallow = plan_marches(2000, 100, 132);
  EXPECT_EQ(shallow.count, 0);
  EXPECT_EQ(shallow.rest, kLongChunk);
}

}  // namespace
}  // namespace staghorn::mhd::tiled
