// core/dispatch.hpp: a run-time value reaches the lambda as the compile-time constant equal to it,
// and a value with no kernel compiled throws naming the choice.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/dispatch.hpp"

namespace staghorn {
namespace {

constexpr int kTable[] = {7, 11, 13};
constexpr int kTableCount = sizeof(kTable) / sizeof(kTable[0]);

// The constant a dispatch handed to its lambda.
auto value_of = [](auto c) { return decltype(c)::value; };

int listed(int v) { return dispatch<1, 2, 3>("order", v, value_of); }
int table_entry(int i) {
  return dispatch_index<kTableCount>("tiled shape", i,
                                     [](auto s) { return kTable[decltype(s)::value]; });
}
int with_fallback(int v) { return dispatch_or<-1, 0, 3>(v, value_of); }

TEST(Dispatch, ListedValueArrivesAsItsConstant) {
  for (int v : {1, 2, 3}) EXPECT_EQ(listed(v), v);
  EXPECT_THROW(listed(4), std::invalid_argument);
}

TEST(Dispatch, IndexCoversEveryEntryOfATable) {
  for (int i = 0; i < kTableCount; ++i) EXPECT_EQ(table_entry(i), kTable[i]);
  for (int bad : {-1, kTableCount}) {
    try {
      table_entry(bad);
      ADD_FAILURE() << "index " << bad << " dispatched";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("tiled shape"), std::string::npos) << e.what();
    }
  }
}

TEST(Dispatch, UnlistedValueTakesTheFallback) {
  EXPECT_EQ(with_fallback(0), 0);
  EXPECT_EQ(with_fallback(3), 3);
  EXPECT_EQ(with_fallback(2), -1);
}

}  // namespace
}  // namespace staghorn
