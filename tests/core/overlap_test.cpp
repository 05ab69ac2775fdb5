// The boundary-shell split covers the block exactly once, and an update with its halo exchange
// gives the same bits with communication hidden or not, on any number of ranks.
#include "core/overlap.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <memory>

#include "core/field_ops.hpp"
#include "core/for_each.hpp"

namespace staghorn {
namespace {

TEST(ShellSplit, CoversTheInteriorExactlyOnce) {
  const Region interior{{0, 0, 0}, {20, 9, 7}};
  for (const Int3 w :
       {Int3{16, 2, 2}, Int3{1, 1, 1}, Int3{3, 0, 2}, Int3{50, 50, 50}, Int3{0, 0, 0}}) {
    const ShellSplit s = split_shell(interior, w);
    std::vector<int> count(20 * 9 * 7, 0);
    auto mark = [&](const Region& r) {
      for (int k = r.lo.z; k < r.hi.z; ++k)
        for (int j = r.lo.y; j < r.hi.y; ++j)
          for (int i = r.lo.x; i < r.hi.x; ++i) ++count[i + 20 * (j + 9 * k)];
    };
    for (const Region& r : s.shell) mark(r);
    mark(s.inner);
    for (int c : count) ASSERT_EQ(c, 1) << "width " << w.x << "," << w.y << "," << w.z;
    // The shell holds every cell within w of a side.
    for (const Region& r : s.shell) EXPECT_FALSE(r.empty());
    if (w.x > 0 && w.x < 10) {
      EXPECT_EQ(s.inner.lo.x, w.x);
      EXPECT_EQ(s.inner.hi.x, 20 - w.x);
    }
    // Two widths as thick as the block (9 and 7 cells, odd): it is all shell.
    if (w.y >= 5 && w.z >= 4) {
      EXPECT_TRUE(s.inner.empty()) << "width " << w.x << "," << w.y << "," << w.z;
    }
  }
}

// Every value the exchange sends lies in the shell split_for makes, whatever width is asked for (a
// self-exchanged periodic axis included: missing it once sent stale values), also on blocks
// thinner than two halos (5 cells along a periodic z with a halo of 3), whose odd middle cell is
// sent both ways.
void expect_shell_covers_sent_cells(Int3 n, std::array<bool, 3> periodic, int h) {
  Grid g;
  g.n = n;
  g.periodic = periodic;
  const Decomposition dec(g, Comm(), {0, 0, 0}, h);
  const Layout l{dec.local_cells(), {h, h, h}};
  const HaloExchange halo(dec, l, Exec::cpu(), true);
  for (const Int3 w : {Int3{0, 0, 0}, Int3{1, 1, 1}, Int3{16, 2, 2}}) {
    const ShellSplit s = split_for(halo, l.interior(), w);
    for (int z = -1; z <= 1; ++z)
      for (int y = -1; y <= 1; ++y)
        for (int x = -1; x <= 1; ++x) {
          if (x == 0 && y == 0 && z == 0) continue;
          const Int3 d{x, y, z};
          if (dec.neighbor(d) == MPI_PROC_NULL) continue;
          const Region r = HaloExchange::send_region(l, d);
          for (int k = r.lo.z; k < r.hi.z; ++k)
            for (int j = r.lo.y; j < r.hi.y; ++j)
              for (int i = r.lo.x; i < r.hi.x; ++i) {
                bool in_shell = false;
                for (const Region& q : s.shell)
                  in_shell = in_shell || (i >= q.lo.x && i < q.hi.x && j >= q.lo.y && j < q.hi.y &&
                                          k >= q.lo.z && k < q.hi.z);
                ASSERT_TRUE(in_shell) << "cell " << i << "," << j << "," << k << " of segment " << x
                                      << "," << y << "," << z << ", width " << w.x;
              }
        }
  }
}

TEST(ShellSplit, CoversEverySentCell) {
  expect_shell_covers_sent_cells({16, 12, 8}, {true, false, true}, 2);
  expect_shell_covers_sent_cells({17, 13, 5}, {true, false, true}, 3);
}

// A Jacobi-like step that reads neighbours: out = average of the 6 neighbours of in + i.
struct Smooth {
  View in, out;
  SH_HD void operator()(int i, int j, int k) const {
    out(i, j, k) = (in(i - 1, j, k) + in(i + 1, j, k) + in(i, j - 1, k) + in(i, j + 1, k) +
                    in(i, j, k - 1) + in(i, j, k + 1)) /
                       6 +
                   1e-3 * i;
  }
};

// Five smoothing steps with their exchange; `split` gives the shell (none: 2 cells along every
// axis, whatever the exchange asks).
std::vector<real> run(bool hide, const Decomposition& dec, bool per_segment = false,
                      bool split = false) {
  Exec ex = Exec::cpu();
  if (per_segment) ex.use_network(std::make_shared<Network>(dec.comm(), ex, "mpi", "", true));
  const Layout l{dec.local_cells(), {dec.halo(0), dec.halo(1), dec.halo(2)}};
  Field a("a", Location::cell, l, Backend::cpu), b("b", Location::cell, l, Backend::cpu);
  std::vector<real> init(l.count(), 0.0);
  for (int k = 0; k < l.n.z; ++k)
    for (int j = 0; j < l.n.y; ++j)
      for (int i = 0; i < l.n.x; ++i) {
        const Int3 o = dec.offset();
        init[l.index(i, j, k)] =
            std::sin(0.3 * (i + o.x)) * std::cos(0.2 * (j + o.y)) + 0.1 * (k + o.z);
      }
  a.from_host(init);
  HaloExchange halo(dec, l, ex, false);
  halo.exchange({&a});
  const ShellSplit shell =
      split ? split_for(halo, l.interior(), {1, 1, 1}) : split_shell(l.interior(), {2, 2, 2});
  for (int it = 0; it < 5; ++it) {
    update_and_exchange(ex, halo, shell, {&b}, hide, [&](const Region& r, Lane lane) {
      for_each(ex, r, lane, Smooth{a.view(), b.view()});
    });
    a.swap_data(b);
  }
  return a.to_host();
}

// Cells of the block and its halo faces (the exchanges here skip edges and corners) that differ.
std::size_t differing(const Decomposition& dec, const std::vector<real>& a,
                      const std::vector<real>& b) {
  const Layout l{dec.local_cells(), {1, 1, 1}};
  std::size_t differ = 0;
  for (int k = -1; k <= l.n.z; ++k)
    for (int j = -1; j <= l.n.y; ++j)
      for (int i = -1; i <= l.n.x; ++i) {
        const bool corner =
            (i < 0 || i >= l.n.x) + (j < 0 || j >= l.n.y) + (k < 0 || k >= l.n.z) > 1;
        if (!corner) differ += a[l.index(i, j, k)] != b[l.index(i, j, k)];
      }
  return differ;
}

TEST(HideCommunication, SameBitsOnOrOff) {
  Grid g;
  g.n = {16, 12, 8};
  g.periodic = {true, true, true};
  const Decomposition dec(g, Comm());
  EXPECT_EQ(differing(dec, run(true, dec), run(false, dec)), 0u);
}

// Segment by segment, each wave packed as soon as the slabs it reads are computed (on the CPU the
// pack reads the values there are then: a wave packed a slab too early sends old values), gives
// the bits of the exchange after the whole shell, on periodic and bounded axes, with a shell one
// cell thin (the sent regions' own width) and on blocks of one cell along z.
TEST(PerSegmentPipelining, SameBitsAsTheWholeShell) {
  const int ranks = Comm().size();
  struct Case {
    Int3 n;
    std::array<bool, 3> periodic;
    Int3 dims;
  };
  for (const Case& c : {Case{{16, 12, 8}, {true, true, true}, {0, 0, 0}},
                        Case{{17, 13, 9}, {false, true, false}, {0, 0, 0}},
                        Case{{12, 10, ranks}, {true, false, true}, {1, 1, ranks}}}) {
    if (c.n.z < 2) continue;  // one rank: z would be inactive
    Grid g;
    g.n = c.n;
    g.periodic = c.periodic;
    const Decomposition dec(g, Comm(), c.dims);
    const std::vector<real> whole = run(false, dec);
    EXPECT_EQ(differing(dec, whole, run(true, dec, true, true)), 0u)
        << "grid " << c.n.x << "x" << c.n.y << "x" << c.n.z;
    EXPECT_EQ(differing(dec, whole, run(true, dec, false, true)), 0u);
  }
}

// One wave per side of each exchanged axis, segment by segment; one wave otherwise.
TEST(PerSegmentPipelining, WavesPerSideOfTheCrossedAxes) {
  Grid g;
  g.n = {16, 12, 8};
  g.periodic = {true, false, true};
  const Decomposition dec(g, Comm());
  const Layout l{dec.local_cells(), {1, 1, 1}};
  Exec ex = Exec::cpu();
  EXPECT_EQ(HaloExchange(dec, l, ex).waves(), 1);
  ex.use_network(std::make_shared<Network>(dec.comm(), ex, "mpi", "", true));
  const HaloExchange halo(dec, l, ex);
  const Int3 axes = halo.axes();
  EXPECT_EQ(halo.waves(), 2 * (axes.x + axes.y + axes.z));
  const ShellSplit s = split_for(halo, l.interior(), {1, 1, 1});
  ASSERT_EQ(s.ready.size(), static_cast<std::size_t>(halo.waves()));
  for (std::size_t w = 1; w < s.ready.size(); ++w) EXPECT_LE(s.ready[w - 1], s.ready[w]);
  // The low side of x leaves after its own slab: the first one cut.
  if (axes.x) EXPECT_EQ(s.ready[0], 1u);
}

}  // namespace
}  // namespace staghorn
