// XSideGhosts: a tiled kernel stores the ghosts beyond the x sides as it stores the new values
// they mirror, and the fill then sets only the other sides (beyond_x). Together they must leave
// every point, edges and corners included, as the fill of every side does.
#include "core/x_side_ghosts.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/decomposition.hpp"
#include "core/field.hpp"
#include "test_support.hpp"

namespace staghorn {
namespace {

using test::bits_of;

// Values that differ from point to point and from call to call (seed).
std::vector<real> values(std::size_t count, unsigned seed) {
  std::vector<real> v(count);
  for (std::size_t q = 0; q < count; ++q)
    v[q] = 1e-3 * double((q * 2654435761u + 97 * seed) % 1009) - 0.5;
  return v;
}

// A kernel's iteration written out on the CPU: every point it computes (the cells 0 .. n - 1 of
// the block along each axis, but a staggered field's point on a low x side with a value, which
// stays as a wall's normal velocity does) takes a new value, and the kernel stores the x sides'
// ghosts that the value mirrors.
template <int N>
void kernel_iteration(const Layout& l, const Location (&locs)[N],
                      const std::array<SideRules, N>& rules, const XSideGhosts<N>& x,
                      std::vector<std::vector<real>>& v, unsigned seed) {
  const std::vector<real> fresh = values(l.count(), seed);
  real* out[N];
  for (int c = 0; c < N; ++c) out[c] = v[c].data() + l.index(0, 0, 0);
  for (int k = 0; k < l.n.z; ++k)
    for (int j = 0; j < l.n.y; ++j)
      for (int i = 0; i < l.n.x; ++i) {
        const int o = static_cast<int>(l.index(i, j, k) - l.index(0, 0, 0));
        real now[N];
        for (int c = 0; c < N; ++c) {
          const bool wall =
              i == 0 && staggered(locs[c], 0) && rules[c][0].kind == GhostRule::antisymmetric;
          if (!wall) v[c][l.index(i, j, k)] = fresh[l.index(i, j, k)] * (c + 1);
          now[c] = v[c][l.index(i, j, k)];
        }
        x.store(out, o, i, now);
      }
}

TEST(XSideGhosts, KernelStoresAndTheFillBeyondXEqualTheFillOfEverySide) {
  // Three fields of different stagger (a cell, an x face, a y face), every kind of rule on the x
  // sides (values, gradients, kept), halos of one to three cells; the block is bounded on every
  // side (a periodic axis's halo comes from the exchange, which this does not model).
  const Comm self(MPI_COMM_SELF);
  const Location locs[3] = {Location::cell, Location::face_x, Location::face_y};
  const GhostRule kinds[5] = {GhostRule::zero_gradient(), GhostRule::fixed_gradient(0.25),
                              GhostRule::fixed_value(-1.5), GhostRule::fixed_value(0),
                              GhostRule{GhostRule::keep}};
  for (int h = 1; h <= 3; ++h)
    for (int variant = 0; variant < 5; ++variant) {
      Grid grid;
      grid.n = {9, 7, 6};
      const Decomposition dec(grid, self);
      const Layout l{dec.local_cells(), {h, h, h}};
      std::array<SideRules, 3> rules;
      for (int c = 0; c < 3; ++c)
        for (int s = 0; s < 6; ++s) rules[c][s] = kinds[(variant + 2 * c + 3 * s) % 5];
      const XSideGhosts<3> x = x_side_ghosts<3>(rules, {false, true, false}, dec, l);
      ASSERT_TRUE(x.on[0] && x.on[1]);

      // The state before the iteration: random, with the fill's ghosts (and wall points) set.
      std::vector<Field> all_sides, x_by_kernel;
      std::vector<Field*> all_p, x_p;
      std::vector<std::vector<real>> v;
      for (int c = 0; c < 3; ++c) {
        all_sides.emplace_back("a", locs[c], l, Backend::cpu);
        x_by_kernel.emplace_back("x", locs[c], l, Backend::cpu);
        all_sides.back().from_host(values(l.count(), 10 + c));
      }
      for (int c = 0; c < 3; ++c) all_p.push_back(&all_sides[c]);
      fill_ghosts(Exec::cpu(), dec, all_p, {rules[0], rules[1], rules[2]});
      for (int c = 0; c < 3; ++c) v.push_back(all_sides[c].to_host());
      const std::vector<std::vector<real>> start = v;

      kernel_iteration<3>(l, locs, rules, x, v, 100 + variant);
      for (int c = 0; c < 3; ++c) {
        x_by_kernel[c].from_host(v[c]);
        x_p.push_back(&x_by_kernel[c]);
      }
      fill_ghosts(Exec::cpu(), dec, x_p,
                  {beyond_x(rules[0]), beyond_x(rules[1]), beyond_x(rules[2])});
      // The reference: the same new values (the ghosts as before), then the fill of every side.
      v = start;
      kernel_iteration<3>(l, locs, rules, XSideGhosts<3>{}, v, 100 + variant);
      for (int c = 0; c < 3; ++c) all_sides[c].from_host(v[c]);
      fill_ghosts(Exec::cpu(), dec, all_p, {rules[0], rules[1], rules[2]});

      for (int c = 0; c < 3; ++c) {
        const std::vector<real> want = all_sides[c].to_host(), got = x_by_kernel[c].to_host();
        int differ = 0;
        for (std::size_t q = 0; q < got.size(); ++q) differ += bits_of(got[q]) != bits_of(want[q]);
        EXPECT_EQ(differ, 0) << to_string(locs[c]) << ", h = " << h << ", variant " << variant;
        // The x_lo ghost of a row moved where a rule sets it: a kernel storing nothing fails.
        if (rules[c][0].kind != GhostRule::keep)
          EXPECT_NE(want[l.index(-1, 2, 3)], start[c][l.index(-1, 2, 3)]) << to_string(locs[c]);
      }
    }
}

}  // namespace
}  // namespace staghorn
