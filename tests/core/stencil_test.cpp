// Staggered operators of core/stencil.hpp: differences exact on quadratics at the midpoint they
// land on, averages exact on (bi)linear functions, second differences exact on cubics, in each
// axis and on the staggered positions the header documents.
#include "core/stencil.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "precision.hpp"

namespace staghorn {
namespace {

using namespace stencil;

const Layout kLayout{{6, 5, 4}, {1, 1, 1}};
const double kH[3] = {0.5, 0.25, 2.0};  // spacings: distinct so that a wrong axis shows

// A polynomial sampled on a padded block, point (i, j, k) at x_a = idx_a * h_a (the positions are
// those of any one location: the operators only see index distances).
struct Sampled {
  std::vector<real> data = std::vector<real>(kLayout.count(), 0.0);
  View v{data.data() + kLayout.origin(), kLayout.stride_y(), kLayout.stride_z()};
  template <class F>
  explicit Sampled(F f) {
    const Region all = kLayout.all();
    for (int k = all.lo.z; k < all.hi.z; ++k)
      for (int j = all.lo.y; j < all.hi.y; ++j)
        for (int i = all.lo.x; i < all.hi.x; ++i) v(i, j, k) = f(i * kH[0], j * kH[1], k * kH[2]);
  }
};

// A full quadratic in three variables with cross terms.
double quad(double x, double y, double z) {
  return 1.5 - 2 * x + 0.5 * y + 3 * z + 0.7 * x * x - 1.1 * y * y + 0.3 * z * z + 0.9 * x * y -
         0.4 * x * z + 1.3 * y * z;
}
double quad_dx(double x, double y, double z) { return -2 + 1.4 * x + 0.9 * y - 0.4 * z; }
double quad_dy(double x, double y, double z) { return 0.5 - 2.2 * y + 0.9 * x + 1.3 * z; }
double quad_dz(double x, double y, double z) { return 3 + 0.6 * z - 0.4 * x + 1.3 * y; }

template <class F>
void for_inner(F f) {
  for (int k = 0; k < kLayout.n.z; ++k)
    for (int j = 0; j < kLayout.n.y; ++j)
      for (int i = 0; i < kLayout.n.x; ++i) f(i, j, k);
}

TEST(Stencil, DifferencesAreExactOnQuadraticsAtTheirMidpoint) {
  const Sampled q(quad);
  const double hx = kH[0], hy = kH[1], hz = kH[2];
  for_inner([&](int i, int j, int k) {
    const double x = i * hx, y = j * hy, z = k * hz;
    EXPECT_NEAR(d_xa(q.v, i, j, k) / hx, quad_dx(x + hx / 2, y, z), test::roundoff(1e-12));
    EXPECT_NEAR(d_ya(q.v, i, j, k) / hy, quad_dy(x, y + hy / 2, z), test::roundoff(1e-12));
    EXPECT_NEAR(d_za(q.v, i, j, k) / hz, quad_dz(x, y, z + hz / 2), test::roundoff(1e-12));
    EXPECT_NEAR(d_xb(q.v, i, j, k) / hx, quad_dx(x - hx / 2, y, z), test::roundoff(1e-12));
    EXPECT_NEAR(d_yb(q.v, i, j, k) / hy, quad_dy(x, y - hy / 2, z), test::roundoff(1e-12));
    EXPECT_NEAR(d_zb(q.v, i, j, k) / hz, quad_dz(x, y, z - hz / 2), test::roundoff(1e-12));
  });
}

TEST(Stencil, SecondDifferencesAreExactOnCubics) {
  const Sampled c([](double x, double y, double z) {
    return x * x * x - 2 * y * y * y + 0.5 * z * z * z + x * y * z;
  });
  for_inner([&](int i, int j, int k) {
    const double x = i * kH[0], y = j * kH[1], z = k * kH[2];
    EXPECT_NEAR(d2_x(c.v, i, j, k) / (kH[0] * kH[0]), 6 * x, test::roundoff(1e-10));
    EXPECT_NEAR(d2_y(c.v, i, j, k) / (kH[1] * kH[1]), -12 * y, test::roundoff(1e-10));
    EXPECT_NEAR(d2_z(c.v, i, j, k) / (kH[2] * kH[2]), 3 * z, test::roundoff(1e-10));
  });
}

double bilinear(double x, double y, double z) {
  return 2 + x - 3 * y + 0.5 * z + 0.8 * x * y - 0.6 * x * z + 1.2 * y * z;
}

TEST(Stencil, AveragesAreExactOnBilinearFunctions) {
  const Sampled b(bilinear);
  const double hx = kH[0], hy = kH[1], hz = kH[2];
  for_inner([&](int i, int j, int k) {
    const double x = i * hx, y = j * hy, z = k * hz;
    EXPECT_NEAR(av_xa(b.v, i, j, k), bilinear(x + hx / 2, y, z), test::roundoff(1e-12));
    EXPECT_NEAR(av_ya(b.v, i, j, k), bilinear(x, y + hy / 2, z), test::roundoff(1e-12));
    EXPECT_NEAR(av_za(b.v, i, j, k), bilinear(x, y, z + hz / 2), test::roundoff(1e-12));
    EXPECT_NEAR(av_xb(b.v, i, j, k), bilinear(x - hx / 2, y, z), test::roundoff(1e-12));
    EXPECT_NEAR(av_yb(b.v, i, j, k), bilinear(x, y - hy / 2, z), test::roundoff(1e-12));
    EXPECT_NEAR(av_zb(b.v, i, j, k), bilinear(x, y, z - hz / 2), test::roundoff(1e-12));
    EXPECT_NEAR(av_xyb(b.v, i, j, k), bilinear(x - hx / 2, y - hy / 2, z), test::roundoff(1e-12));
    EXPECT_NEAR(av_xzb(b.v, i, j, k), bilinear(x - hx / 2, y, z - hz / 2), test::roundoff(1e-12));
    EXPECT_NEAR(av_yzb(b.v, i, j, k), bilinear(x, y - hy / 2, z - hz / 2), test::roundoff(1e-12));
    EXPECT_NEAR(av_xya(b.v, i, j, k), bilinear(x + hx / 2, y + hy / 2, z), test::roundoff(1e-12));
    EXPECT_NEAR(av_xza(b.v, i, j, k), bilinear(x + hx / 2, y, z + hz / 2), test::roundoff(1e-12));
    EXPECT_NEAR(av_yza(b.v, i, j, k), bilinear(x, y + hy / 2, z + hz / 2), test::roundoff(1e-12));
  });
}

TEST(Stencil, HarmonicAverageOfTwoPhases) {
  // Two cells of 1 and two of 1e4 around an edge: 4 / (2 + 2e-4), dominated by the weak phase.
  Sampled m([](double x, double, double) { return x < 1.0 ? 1.0 : 1e4; });
  const int i = 2;  // x = 1.0 at i = 2: cells i - 1 (0.5) and i (1.0) differ
  EXPECT_NEAR(hav_xyb(m.v, i, 2, 1), 4.0 / (2.0 + 2e-4), test::roundoff(1e-12));
  EXPECT_NEAR(hav_yzb(m.v, i, 2, 1), 1e4, 1e-8);  // all four cells at x = 1.0
  EXPECT_NEAR(hav_xzb(m.v, i, 2, 1), 4.0 / (2.0 + 2e-4), test::roundoff(1e-12));
  // An arithmetic average of the same cells is dominated by the strong phase.
  EXPECT_NEAR(av_xyb(m.v, i, 2, 1), 0.5 * (1 + 1e4), 1e-8);
}

TEST(Stencil, MaxAroundSeesTheWholeNeighbourhoodOnlyInActiveDimensions) {
  Sampled m([](double, double, double) { return 0.0; });
  m.v(3, 2, 2) = 5;  // a corner neighbour of (2, 1, 1)
  EXPECT_EQ(max_around<3>(m.v, m.v.offset(2, 1, 1)), 5);
  EXPECT_EQ(max_around<2>(m.v, m.v.offset(2, 1, 1)), 0);  // another z plane
  EXPECT_EQ(max_around<2>(m.v, m.v.offset(2, 1, 2)), 5);
  EXPECT_EQ(max_around<1>(m.v, m.v.offset(2, 1, 2)), 0);
  EXPECT_EQ(max_around<3>(m.v, m.v.offset(1, 1, 1)), 0);  // two cells away along x
  // The four cells around an edge below (3, 2, 2) in two axes.
  EXPECT_EQ(max_xyb(m.v, 3, 2, 2), 5);
  EXPECT_EQ(max_xyb(m.v, 4, 3, 2), 5);
  EXPECT_EQ(max_xyb(m.v, 3, 2, 1), 0);
  EXPECT_EQ(max_xzb(m.v, 4, 2, 3), 5);
  EXPECT_EQ(max_yzb(m.v, 3, 3, 3), 5);
  EXPECT_EQ(max_yzb(m.v, 4, 3, 3), 0);
}

}  // namespace
}  // namespace staghorn
