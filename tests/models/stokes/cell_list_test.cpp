// for_each_item_both (models/stokes/stiff_bodies/cell_list.hpp): two lists with their own functors, in one launch on the
// GPU, visit every item of each list exactly once and nothing else, on every backend here (the
// GPU when one is visible): lists of very different lengths (a few blocks beside many), and one
// of them empty.
#include "models/stokes/stiff_bodies/cell_list.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "test_support.hpp"

namespace staghorn {
namespace {

const Region kBox{{0, 0, 0}, {64, 40, 30}};

SH_HD inline long long index_in(const Region& r, const Int3& c) {
  const Int3 e = r.extent();
  return (static_cast<long long>(c.z - r.lo.z) * e.y + (c.y - r.lo.y)) * e.x + (c.x - r.lo.x);
}

// Adds `add` at the item's cell of a dense array over `box` (each cell listed once: no race).
struct AddAt {
  double* out;
  Region box;
  double add;
  SH_HD void operator()(const Int3& c) const { out[index_in(box, c)] += add; }
};

// The cells of kBox whose linear number n has n % every == rest.
std::vector<Int3> cells_where(int every, int rest) {
  std::vector<Int3> cells;
  long long n = 0;
  test::for_cells(kBox, [&](int i, int j, int k) {
    if (n++ % every == rest) cells.push_back({i, j, k});
  });
  return cells;
}

// What each cell holds after for_each_item_both(a with +1, b with +2), on ex.
std::vector<double> visits(const Exec& ex, const std::vector<Int3>& a, const std::vector<Int3>& b) {
  const std::size_t count = static_cast<std::size_t>(kBox.size());
  Buffer<double> out(space_of(ex.backend()), count);
  const std::vector<double> zeros(count, 0.0);
  copy_bytes(out.data(), zeros.data(), out.bytes());
  for_each_item_both(ex, CellList(ex, a), AddAt{out.data(), kBox, 1}, CellList(ex, b),
                     AddAt{out.data(), kBox, 2});
  ex.synchronize();
  std::vector<double> host(count);
  copy_bytes(host.data(), out.data(), out.bytes());
  return host;
}

std::vector<double> expected(const std::vector<Int3>& a, const std::vector<Int3>& b) {
  std::vector<double> want(static_cast<std::size_t>(kBox.size()), 0.0);
  for (const Int3& c : a) want[index_in(kBox, c)] += 1;
  for (const Int3& c : b) want[index_in(kBox, c)] += 2;
  return want;
}

TEST(ForEachItemBoth, VisitsEveryItemOfEachListOnce) {
  // Disjoint (the lists' items must not touch each other's): odd cells, and even ones.
  const std::vector<Int3> few = cells_where(194, 1), many = cells_where(2, 0);
  ASSERT_GT(few.size(), 256u);  // more than one block of its own
  for (const Exec& ex : test::backends()) {
    SCOPED_TRACE(ex.description());
    EXPECT_EQ(visits(ex, few, many), expected(few, many));
    EXPECT_EQ(visits(ex, many, few), expected(many, few));
  }
}

TEST(ForEachItemBoth, AnEmptyListLeavesTheOtherAlone) {
  const std::vector<Int3> some = cells_where(3, 0), none;
  for (const Exec& ex : test::backends()) {
    SCOPED_TRACE(ex.description());
    EXPECT_EQ(visits(ex, some, none), expected(some, none));
    EXPECT_EQ(visits(ex, none, some), expected(none, some));
  }
}

}  // namespace
}  // namespace staghorn
