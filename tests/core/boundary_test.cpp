// apply_boundaries and fill_ghosts: Dirichlet and Neumann ghosts for cell-centred and staggered
// fields, only on the physical sides of ranks at the domain edge; periodic axes and inner sides
// untouched; fixed gradients, kept sides and several fields in one call (GhostRule).
#include "core/boundary.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/decomposition.hpp"
#include "core/field.hpp"
#include "precision.hpp"
#include "test_support.hpp"

namespace staghorn {
namespace {

using test::bits_of;
using test::error_of;
using test::gather_text;

const real kNaN = std::numeric_limits<real>::quiet_NaN();

std::string at(Int3 c) {
  return "(" + std::to_string(c.x) + "," + std::to_string(c.y) + "," + std::to_string(c.z) + ")";
}

// A smooth, non-symmetric initial state at global point g.
real initial(Int3 g) { return 1 + 0.1 * g.x + 0.01 * g.y * g.y - 0.3 * g.z; }

Bc dirichlet(real v) { return {BcKind::dirichlet, v}; }
Bc neumann() { return {BcKind::neumann, 0}; }

// Applies `bcs` to a field at `loc` whose owned points hold initial() and whose other cells are
// NaN, and returns what is wrong (empty if nothing).
std::string run_case(bool flat, int halo, Location loc, const SideBcs& bcs) {
  const Comm world;
  const Int3 dims = world.size() == 4 ? Int3{2, 2, 1} : Int3{1, 1, 1};
  const Int3 local{6, 5, flat ? 1 : 4};
  Grid grid;
  grid.n = {local.x * dims.x, local.y * dims.y, local.z * dims.z};
  grid.periodic = {false, false, true};  // x and y bounded, z periodic (or inactive)
  const Decomposition dec(grid, world, dims, halo);
  const Layout l{dec.local_cells(), {dec.halo(0), dec.halo(1), dec.halo(2)}};
  Field f("f", loc, l, Backend::cpu);
  const Int3 owned{dec.owned_points(loc, 0), dec.owned_points(loc, 1), dec.owned_points(loc, 2)};

  std::vector<real> before(l.count(), kNaN);
  for (int k = 0; k < owned.z; ++k)
    for (int j = 0; j < owned.y; ++j)
      for (int i = 0; i < owned.x; ++i)
        before[l.index(i, j, k)] =
            initial({dec.offset().x + i, dec.offset().y + j, dec.offset().z + k});
  f.from_host(before);
  apply_boundaries(Exec::cpu(), dec, f, bcs);
  const std::vector<real> v = f.to_host();
  auto after = [&](int i, int j, int k) { return v[l.index(i, j, k)]; };

  std::string errors;
  int shown = 0;
  auto fail = [&](const std::string& what) {
    if (shown++ < 6) errors += what + "; ";
  };

  // 1. Which cells may change: a cell outside the owned block on a side that is not a physical
  //    boundary of this rank (an inner side or a periodic axis) stays NaN; owned points keep their
  //    value except a staggered Dirichlet boundary point; ghosts on physical sides are filled.
  const Region all = l.all();
  for (int k = all.lo.z; k < all.hi.z; ++k)
    for (int j = all.lo.y; j < all.hi.y; ++j)
      for (int i = all.lo.x; i < all.hi.x; ++i) {
        const Int3 c{i, j, k};
        bool inside = true, untouched = false;
        real boundary_value = kNaN;  // set on a staggered Dirichlet boundary plane
        for (int a = 0; a < 3; ++a) {
          const bool low = c[a] < 0, high = c[a] >= owned[a];
          const bool stag = staggered(loc, a) && !grid.periodic[a] && grid.active(a);
          const Bc &lo = bcs[2 * a], &hi = bcs[2 * a + 1];
          if (stag && c[a] == 0 && dec.at_low(a) && lo.kind == BcKind::dirichlet)
            boundary_value = lo.value;
          if (stag && c[a] == owned[a] - 1 && dec.at_high(a) && hi.kind == BcKind::dirichlet)
            boundary_value = hi.value;
          if (!low && !high) continue;
          inside = false;
          const bool physical = !grid.periodic[a] && (low ? dec.at_low(a) : dec.at_high(a));
          if (!physical) untouched = true;
        }
        const real got = after(i, j, k);
        if (untouched) {
          // The boundary plane may be set across the other axes' halos too (its owner sets it to
          // the same value), so only cells off such a plane must stay NaN.
          if (!std::isnan(got) && std::isnan(boundary_value))
            fail("cell " + at(c) + " has no physical side but was set");
        } else if (inside) {
          const real want = std::isnan(boundary_value) ? before[l.index(i, j, k)] : boundary_value;
          if (!(got == want))
            fail("owned " + at(c) + " = " + std::to_string(got) + ", want " + std::to_string(want));
        } else if (!std::isfinite(got)) {
          fail("ghost " + at(c) + " on physical sides left unset");
        }
      }

  // 2. The conditions on the bounded axes. x across the owned y-z block; y (the last bounded axis,
  //    so its ghosts are final everywhere) across the whole x extent, edges and corners included.
  for (int a = 0; a < 2; ++a) {
    const bool stag = staggered(loc, a);
    const int n = l.n[a], h = l.h[a];
    for (int side = 0; side < 2; ++side) {
      if (side == 0 ? !dec.at_low(a) : !dec.at_high(a)) continue;
      const Bc bc = bcs[2 * a + side];
      const int b = a == 0 ? 1 : 0;  // the other bounded axis
      const int b_lo = a == 0 ? 0 : -l.h[b], b_hi = a == 0 ? owned[b] : l.n[b] + l.h[b];
      for (int k = 0; k < owned.z; ++k)
        for (int q = b_lo; q < b_hi; ++q) {
          // A staggered Dirichlet point of y is set by the y pass, after x: skip those rows.
          if (a == 0 && staggered(loc, b) &&
              ((q == 0 && dec.at_low(b) && bcs[2 * b].kind == BcKind::dirichlet) ||
               (q == owned[b] - 1 && dec.at_high(b) && bcs[2 * b + 1].kind == BcKind::dirichlet)))
            continue;
          auto value = [&](int p) {
            Int3 c{0, 0, k};
            c[a] = p;
            c[b] = q;
            return after(c.x, c.y, c.z);
          };
          auto where = [&](int p) {
            Int3 c{0, 0, k};
            c[a] = p;
            c[b] = q;
            return at(c);
          };
          if (stag && bc.kind == BcKind::dirichlet) {
            const int p = side == 0 ? 0 : n;
            if (std::isfinite(value(p)) && value(p) != bc.value)
              fail("boundary face " + where(p) + " = " + std::to_string(value(p)) + ", want " +
                   std::to_string(bc.value));
          }
          // The closing face of a staggered field sits at index n, inside the halo: only the
          // cells after it are ghosts on the high side.
          const int ghosts = stag && side == 1 ? h - 1 : h;
          for (int m = 1; m <= ghosts; ++m) {
            // Ghost and the point mirrored across the boundary (a face for cell-centred points,
            // the boundary point itself for staggered ones).
            const int ghost = side == 0 ? -m : (stag ? n + m : n - 1 + m);
            const int mirror = side == 0 ? (stag ? m : m - 1) : n - m;
            const real g = value(ghost), in = value(mirror);
            if (std::isnan(in)) {
              if (!std::isnan(g)) fail("ghost " + where(ghost) + " set from a NaN mirror");
              continue;
            }
            const bool ok = bc.kind == BcKind::neumann
                                ? g == in
                                : std::fabs(0.5 * (g + in) - bc.value) < test::roundoff(1e-12);
            if (!ok)
              fail(std::string(bc.kind == BcKind::neumann ? "Neumann" : "Dirichlet") + " ghost " +
                   where(ghost) + " = " + std::to_string(g) + ", mirror " + where(mirror) + " = " +
                   std::to_string(in) + ", boundary value " + std::to_string(bc.value));
          }
        }
    }
  }
  return gather_text(world, errors);
}

const SideBcs kDirichletX = {dirichlet(1.5),  dirichlet(-2), neumann(),
                             dirichlet(0.25), dirichlet(99), dirichlet(99)};
const SideBcs kNeumannX = {neumann(), neumann(),     dirichlet(-1),
                           neumann(), dirichlet(99), dirichlet(99)};

TEST(Boundary, CellCentredDirichletIsMidwayBetweenGhostAndInterior) {
  for (bool flat : {false, true})
    for (int halo : {1, 2})
      for (const SideBcs* bcs : {&kDirichletX, &kNeumannX}) {
        SCOPED_TRACE(std::string(flat ? "2-D" : "3-D") + " halo " + std::to_string(halo) +
                     (bcs == &kDirichletX ? " Dirichlet x" : " Neumann x"));
        EXPECT_EQ(run_case(flat, halo, Location::cell, *bcs), "");
      }
}

TEST(Boundary, StaggeredDirichletSitsOnTheBoundaryFace) {
  for (Location loc : {Location::face_x, Location::face_y, Location::edge_xy})
    for (bool flat : {false, true})
      for (int halo : {1, 2})
        for (const SideBcs* bcs : {&kDirichletX, &kNeumannX}) {
          SCOPED_TRACE(to_string(loc) + (flat ? " 2-D" : " 3-D") + " halo " + std::to_string(halo) +
                       (bcs == &kDirichletX ? " Dirichlet x" : " Neumann x"));
          EXPECT_EQ(run_case(flat, halo, loc, *bcs), "");
        }
}

TEST(Boundary, ExplicitValuesOnOneRank) {
  // Hand-computed ghosts on a 4x3x1 bounded block with halo 1.
  const Comm self(MPI_COMM_SELF);
  Grid grid;
  grid.n = {4, 3, 1};
  const Decomposition dec(grid, self);
  const Layout l{dec.local_cells(), {1, 1, 0}};
  const SideBcs bcs = {dirichlet(1), dirichlet(2), neumann(), neumann(), neumann(), neumann()};

  Field c("c", Location::cell, l, Backend::cpu);
  std::vector<real> v(l.count(), kNaN);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 4; ++i) v[l.index(i, j, 0)] = 10 * j + i;
  c.from_host(v);
  apply_boundaries(Exec::cpu(), dec, c, bcs);
  auto cv = c.to_host();
  EXPECT_EQ(cv[l.index(-1, 1, 0)], 2 * 1 - 10.0);  // mirrors (0, 1) = 10 across x = 0
  EXPECT_EQ(cv[l.index(4, 1, 0)], 2 * 2 - 13.0);   // mirrors (3, 1) = 13 across x = L
  EXPECT_EQ(cv[l.index(2, -1, 0)], 2.0);           // Neumann copies (2, 0)
  EXPECT_EQ(cv[l.index(2, 3, 0)], 22.0);           // Neumann copies (2, 2)
  EXPECT_EQ(cv[l.index(-1, -1, 0)], 2 * 1 - 0.0);  // corner: y mirror of the x ghost

  Field fx("fx", Location::face_x, l, Backend::cpu);
  for (int j = 0; j < 3; ++j) v[l.index(4, j, 0)] = 100 + j;  // the closing face
  fx.from_host(v);
  apply_boundaries(Exec::cpu(), dec, fx, bcs);
  auto fv = fx.to_host();
  EXPECT_EQ(fv[l.index(0, 1, 0)], 1.0);            // the boundary face takes the value
  EXPECT_EQ(fv[l.index(4, 1, 0)], 2.0);            // ... on both sides
  EXPECT_EQ(fv[l.index(-1, 1, 0)], 2 * 1 - 11.0);  // mirrors (1, 1) = 11 across face 0
  EXPECT_EQ(fv[l.index(1, 1, 0)], 11.0);           // the interior is untouched
}

TEST(Boundary, GhostRulesGradientKeepAndSeveralFieldsAtOnce) {
  // A fixed gradient continues the mirrored point by `step` per cell along the axis; `keep` leaves
  // a side alone; three fields filled in one call equal each filled alone.
  const Comm self(MPI_COMM_SELF);
  Grid grid;
  grid.n = {4, 3, 1};
  const Decomposition dec(grid, self);
  const Layout l{dec.local_cells(), {2, 2, 0}};
  std::vector<real> v(l.count(), kNaN);
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 5; ++i) v[l.index(i, j, 0)] = 10 * j + i;
  SideRules rules = zero_gradient_sides();
  rules[0] = GhostRule::fixed_gradient(0.5);
  rules[1] = {GhostRule::keep};
  rules[2] = GhostRule::fixed_value(3);

  Field c("c", Location::cell, l, Backend::cpu);
  c.from_host(v);
  fill_ghosts(Exec::cpu(), dec, c, rules);
  const auto cv = c.to_host();
  EXPECT_EQ(cv[l.index(-1, 1, 0)], 10 - 0.5 * 1);  // mirrors (0, 1), one cell below it
  EXPECT_EQ(cv[l.index(-2, 1, 0)], 11 - 0.5 * 3);  // mirrors (1, 1), three cells below it
  EXPECT_EQ(cv[l.index(4, 1, 0)], 14.0);           // x_hi kept: its earlier value
  EXPECT_TRUE(std::isnan(cv[l.index(5, 1, 0)]));   // ... and its NaN
  EXPECT_EQ(cv[l.index(1, -1, 0)], 2 * 3 - 1.0);   // y_lo: the value 3 on the boundary

  // The same rules on a face-x field, a face-y field and a cell field, alone and together.
  const Location locs[3] = {Location::face_x, Location::face_y, Location::cell};
  std::vector<Field> alone, together;
  for (Location loc : locs) {
    alone.emplace_back("a", loc, l, Backend::cpu);
    together.emplace_back("t", loc, l, Backend::cpu);
  }
  std::vector<Field*> fields;
  for (int f = 0; f < 3; ++f) {
    alone[f].from_host(v);
    together[f].from_host(v);
    fill_ghosts(Exec::cpu(), dec, alone[f], rules);
    fields.push_back(&together[f]);
  }
  fill_ghosts(Exec::cpu(), dec, fields, {rules, rules, rules});
  for (int f = 0; f < 3; ++f) {
    const auto a = alone[f].to_host(), t = together[f].to_host();
    for (std::size_t q = 0; q < a.size(); ++q)
      ASSERT_TRUE(a[q] == t[q] || (std::isnan(a[q]) && std::isnan(t[q]))) << "field " << f;
  }
  // The face-x field's boundary point on x_lo is itself (distance 0): the gradient adds nothing.
  EXPECT_EQ(alone[0].to_host()[l.index(0, 1, 0)], 10.0);
  EXPECT_EQ(alone[0].to_host()[l.index(-1, 1, 0)], 11 - 0.5 * 2);
}

// The fill of fill_ghosts written out axis by axis (x, y, z): along each bounded axis, every
// ghost of each side whose rule is not keep, across the whole padded block, from its mirror.
void fill_axis_by_axis(const Grid& grid, const Layout& l, Location loc, const SideRules& rules,
                       std::vector<real>& v) {
  const Region all = l.all();
  for (int a = 0; a < 3; ++a) {
    if (l.h[a] == 0 || grid.periodic[a]) continue;
    for (int side = 0; side < 2; ++side) {
      const GhostRule& rule = rules[2 * a + side];
      if (rule.kind == GhostRule::keep) continue;
      const GhostSpan span = ghost_span(staggered(loc, a), side, l.n[a], l.h[a]);
      for (int k = all.lo.z; k < all.hi.z; ++k)
        for (int j = all.lo.y; j < all.hi.y; ++j)
          for (int i = all.lo.x; i < all.hi.x; ++i) {
            int c[3] = {i, j, k};
            const int g = c[a];
            if (g < span.lo || g >= span.hi) continue;
            c[a] = span.mirror - g;
            const real inside = v[l.index(c[0], c[1], c[2])];
            v[l.index(i, j, k)] = rule.ghost(inside, g - c[a]);
          }
    }
  }
}

TEST(Boundary, OneLaunchFillEqualsTheFillAxisByAxis) {
  // fill_ghosts sets every side's ghosts in one launch (edges and corners through their chain of
  // mirrors): the values, to the bit, of the fill axis by axis, for every stagger location, mixed
  // rules (kept sides, gradients, values, a periodic axis), several fields in one call, halos of
  // one and two cells, and values that tell zeros' signs and NaN apart; on every backend (a GPU
  // thread loads all its fields' values before it stores a ghost).
  const Comm self(MPI_COMM_SELF);
  const Location locs[6] = {Location::cell,   Location::face_x,  Location::face_y,
                            Location::face_z, Location::edge_xy, Location::node};
  const GhostRule kinds[5] = {GhostRule::zero_gradient(), GhostRule::fixed_gradient(0.25),
                              GhostRule::fixed_value(-1.5), GhostRule::fixed_value(0),
                              GhostRule{GhostRule::keep}};
  for (const Exec& ex : test::backends())
    for (int h = 1; h <= 2; ++h)
      for (bool periodic_y : {false, true}) {
        Grid grid;
        grid.n = {7, 6, 5};
        grid.periodic = {false, periodic_y, false};
        const Decomposition dec(grid, self);
        const Layout l{dec.local_cells(), {h, h, h}};
        std::vector<Field> fields;
        std::vector<Field*> pointers;
        std::vector<SideRules> rules;
        std::vector<std::vector<real>> expected;
        for (int c = 0; c < 6; ++c) {
          std::vector<real> v(l.count());
          for (std::size_t q = 0; q < v.size(); ++q) {
            const std::size_t r = (q * 2654435761u + 97 * c) % 1009;
            v[q] = r == 0 ? -0.0 : r == 1 ? kNaN : 1e-3 * double(r) - 0.5;
          }
          SideRules rc;
          for (int s = 0; s < 6; ++s) rc[s] = kinds[(3 * c + 2 * s + h) % 5];
          fields.emplace_back("f" + std::to_string(c), locs[c], l, ex.backend());
          fields.back().from_host(v);
          fill_axis_by_axis(grid, l, locs[c], rc, v);
          expected.push_back(v);
          rules.push_back(rc);
        }
        for (Field& f : fields) pointers.push_back(&f);
        fill_ghosts(ex, dec, pointers, rules);
        for (int c = 0; c < 6; ++c) {
          const std::vector<real> got = fields[c].to_host();
          int differ = 0;
          for (std::size_t q = 0; q < got.size(); ++q)
            differ += bits_of(got[q]) != bits_of(expected[c][q]);
          EXPECT_EQ(differ, 0) << to_string(locs[c]) << ", h = " << h
                               << (periodic_y ? ", y periodic" : "") << ", " << ex.description();
        }
      }
}

TEST(Boundary, FillWithinABoxSetsOnlyTheGhostsBesideIt) {
  // A fill within a box sets the ghosts whose other coordinates lie in it, as a fill everywhere
  // does, and leaves every other point as it was (after a change inside the box, the fill of the
  // walls it reaches: models/stokes, the rigid bodies' corrections). Three fields of different
  // stagger and values in one call: each ghost from its own field's mirror.
  const Comm self(MPI_COMM_SELF);
  Grid grid;
  grid.n = {6, 5, 4};
  const Decomposition dec(grid, self);
  const Layout l{dec.local_cells(), {1, 1, 1}};
  const Region all = l.all();
  SideRules rules;
  rules.fill({GhostRule::keep});  // the x walls only: one sweep, along x
  rules[0] = GhostRule::zero_gradient();
  rules[1] = GhostRule::fixed_value(2);
  const Region box{{-1, 1, 0}, {3, 3, 2}};  // rows 1-2 of planes 0-1
  const Location locs[3] = {Location::cell, Location::face_x, Location::face_y};
  for (const Exec& ex : test::backends()) {
    std::vector<std::vector<real>> v;
    std::vector<Field> everywhere, within;
    for (int c = 0; c < 3; ++c) {
      v.emplace_back(l.count(), kNaN);
      for (int k = all.lo.z; k < all.hi.z; ++k)
        for (int j = all.lo.y; j < all.hi.y; ++j)
          for (int i = all.lo.x; i < all.hi.x; ++i)
            v[c][l.index(i, j, k)] = 1000 * c + 100 * k + 10 * j + i;
      everywhere.emplace_back("e", locs[c], l, ex.backend());
      within.emplace_back("w", locs[c], l, ex.backend());
      everywhere[c].from_host(v[c]);
      within[c].from_host(v[c]);
      fill_ghosts(ex, dec, everywhere[c], rules);
    }
    fill_ghosts(ex, dec, {&within[0], &within[1], &within[2]}, {rules, rules, rules}, Lane::inner,
                box);
    for (int c = 0; c < 3; ++c) {
      const auto e = everywhere[c].to_host(), w = within[c].to_host();
      int changed = 0;
      for (int k = all.lo.z; k < all.hi.z; ++k)
        for (int j = all.lo.y; j < all.hi.y; ++j)
          for (int i = all.lo.x; i < all.hi.x; ++i) {
            const std::size_t q = l.index(i, j, k);
            const bool beside = j >= box.lo.y && j < box.hi.y && k >= box.lo.z && k < box.hi.z;
            // x's ghosts on both sides (and face_x's boundary points, 0 and n)
            const bool x_ghost = i < 0 || i >= 6 || (locs[c] == Location::face_x && i == 0);
            const real expected = beside && x_ghost ? e[q] : v[c][q];
            ASSERT_EQ(w[q], expected)
                << to_string(locs[c]) << " at " << at({i, j, k}) << ", " << ex.description();
            changed += w[q] != v[c][q];
          }
      EXPECT_GT(changed, 0) << to_string(locs[c]) << ", " << ex.description();
    }
  }
}

}  // namespace
}  // namespace staghorn
