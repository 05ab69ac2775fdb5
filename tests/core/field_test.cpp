// A new Field holds zeros in every cell, the row padding and halo included: models rely on it for
// their initial state, and whole-array copies and comparisons would otherwise see leftover memory.
#include "core/field.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace staghorn::test {
namespace {

TEST(Field, StartsZeroedEvenWhereAnEarlierArrayLeftValues) {
  const Layout layout{{7, 5, 4}, {2, 2, 1}};  // rows padded to 128 bytes: cells no kernel writes
  for (int round = 0; round < 4; ++round) {
    {
      // Freed just before the next allocation of the same size, which the heap tends to reuse.
      Field old("old", Location::cell, layout, Backend::cpu);
      old.from_host(std::vector<real>(layout.count(), real(7)));
    }
    Field f("f", Location::cell, layout, Backend::cpu);
    const std::vector<real> v = f.to_host();
    for (std::size_t c = 0; c < v.size(); ++c)
      ASSERT_EQ(v[c], 0) << "round " << round << " cell " << c;
  }
}

}  // namespace
}  // namespace staghorn::test
