// A new Field holds zeros in every cell, the row padding and halo included: models rely on it for
// their initial state, and whole-array copies and comparisons would otherwise see leftover memory.
#include "core/field.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/backend.hpp"

namespace staghorn::test {
namespace {

void expect_new_fields_zeroed(Backend backend) {
  const Layout layout{{7, 5, 4}, {2, 2, 1}};  // rows padded to 128 bytes: cells no kernel writes
  for (int round = 0; round < 4; ++round) {
    {
      // Freed just before the next allocation of the same size, which the heap tends to reuse.
      Field old("old", Location::cell, layout, backend);
      old.from_host(std::vector<real>(layout.count(), real(7)));
    }
    Field f("f", Location::cell, layout, backend);
    const std::vector<real> v = f.to_host();
    for (std::size_t c = 0; c < v.size(); ++c)
      ASSERT_EQ(v[c], 0) << "round " << round << " cell " << c;
  }
}

TEST(Field, StartsZeroedEvenWhereAnEarlierArrayLeftValues) {
  expect_new_fields_zeroed(Backend::cpu);
}

TEST(Field, StartsZeroedOnTheDeviceToo) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  expect_new_fields_zeroed(Backend::cuda);
}

}  // namespace
}  // namespace staghorn::test
