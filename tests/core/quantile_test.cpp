// quantile: the median of a cell field by global index, the same on any rank count (1, 2, 4
// ranks), exactly a value of the field, right for a matrix with inclusions and for distinct values.
#include "core/quantile.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/decomposition.hpp"

namespace staghorn {
namespace {

// Fills f at global cell (i, j) with value(i, j).
template <class F>
void fill(Field& f, const Decomposition& dec, F value) {
  const Layout& l = f.layout();
  std::vector<real> h = f.to_host();
  for (int j = 0; j < l.n.y; ++j)
    for (int i = 0; i < l.n.x; ++i)
      h[l.index(i, j, 0)] = value(i + dec.offset().x, j + dec.offset().y);
  f.from_host(h);
}

struct Block {
  Comm comm;
  Decomposition dec;
  Layout l;
  Field f;
  Block()
      : dec(grid(), comm),
        l{dec.local_cells(), {1, 1, 0}},
        f("f", Location::cell, l, Backend::cpu) {}
  static Grid grid() {
    Grid g;
    g.n = {40, 30, 1};
    return g;
  }
  real median() { return quantile(Exec::cpu(), comm, {{0, 0, 0}, l.n}, f, 0.5); }
};

TEST(Quantile, MedianOfAMatrixWithWeakInclusionsIsTheMatrix) {
  Block s;
  // 40% of the cells 1e-5, the rest 3.5: the median is exactly 3.5.
  fill(s.f, s.dec, [](int i, int) { return i < 16 ? real(1e-5) : real(3.5); });
  EXPECT_EQ(s.median(), real(3.5));
  // 60% weak: the median is the weak value.
  fill(s.f, s.dec, [](int i, int) { return i < 24 ? real(1e-5) : real(3.5); });
  EXPECT_EQ(s.median(), real(1e-5));
}

TEST(Quantile, MedianOfDistinctValuesIsTheMiddleOne) {
  Block s;
  // 1200 distinct values 1.5^(c / 100) for c = 0..1199 (spread over decades, ranks and rows):
  // at least half (600) are >= the value of c = 600, fewer are >= the next.
  auto value = [](int i, int j) { return real(std::pow(1.5, (i + 40 * j) / 100.0)); };
  fill(s.f, s.dec, value);
  EXPECT_EQ(s.median(), real(std::pow(1.5, 600 / 100.0)));
}

}  // namespace
}  // namespace staghorn
