#include "core/boundary.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "core/error.hpp"
#include "core/for_each.hpp"
#include "core/for_each_regions.hpp"

namespace staghorn {
namespace {

constexpr int kMaxFields = 6;

// The ghosts of one side for up to six fields: field c's ghost g (lo[c] <= g < hi[c] along the
// axis) from the point m = mirror[c] - g by rule[c].
struct SideGhosts {
  View f[kMaxFields];
  GhostRule rule[kMaxFields];
  int lo[kMaxFields], hi[kMaxFields], mirror[kMaxFields];
  int count = 0;
  int from = 0, width = 0;  // the slab of ghost indices along the axis: [from, from + width)
};

// The ghosts of one axis's sides in one launch: the launch's positions t along the axis run over
// the low side's slab, then the high side's (an empty side has width 0).
struct FillGhosts {
  SideGhosts side[2];
  int axis;
  // Every field's value loaded before any ghost is stored, as in FillAllGhosts below.
  SH_HD void operator()(int i, int j, int k) const {
    int idx[3] = {i, j, k};
    const int t = idx[axis];
    const SideGhosts& s = side[t < side[0].width ? 0 : 1];
    const int g = t < side[0].width ? s.from + t : s.from + t - side[0].width;
    real v[kMaxFields];
#pragma unroll
    for (int c = 0; c < kMaxFields; ++c) {
      if (c >= s.count) break;
      if (g < s.lo[c] || g >= s.hi[c]) continue;
      idx[axis] = s.mirror[c] - g;
      v[c] = s.f[c](idx[0], idx[1], idx[2]);
    }
    idx[axis] = g;
#pragma unroll
    for (int c = 0; c < kMaxFields; ++c) {
      if (c >= s.count) break;
      if (g < s.lo[c] || g >= s.hi[c]) continue;
      s.f[c](idx[0], idx[1], idx[2]) = s.rule[c].ghost(v[c], g - (s.mirror[c] - g));
    }
  }
};

// One field's ghosts along one axis: the spans and rules of its boundary sides (`on`: a physical
// side whose rule is not keep).
struct AxisGhosts {
  GhostRule rule[2];
  int lo[2] = {0, 0}, hi[2] = {0, 0}, mirror[2] = {0, 0};
  bool on[2] = {false, false};
  // The side whose ghost index g is (-1: none).
  SH_HD int side_of(int g) const {
    for (int s = 0; s < 2; ++s)
      if (on[s] && g >= lo[s] && g < hi[s]) return s;
    return -1;
  }
};

// Every boundary side's ghosts of up to six fields in one launch, each point to the value the fill
// axis by axis gives it (FillGhosts along x, then y, then z: a ghost along an axis from the point
// mirrored across it as the axes before left that point). A point's mirrors are followed back
// along z, y, x to the one value they start from, and the rules applied from there along x, y, z.
// The value read is never written by the launch (it lies inside along every axis mirrored), except
// a staggered field's boundary point (distance 0), whose rule gives the same from either value.
// Valid where no side's mirrors reach the other side's ghosts (n > h along every filled axis).
struct FillAllGhosts {
  View f[kMaxFields];
  AxisGhosts axis[kMaxFields][3];
  int count = 0;

  // Where ghost (i, j, k) of field c starts its chain of mirrors: the point p, and the side of
  // each axis it is mirrored across (-1: none).
  struct Chain {
    int p[3], side[3];
    bool ghost;
  };
  SH_HD Chain chain(int c, int i, int j, int k) const {
    Chain m{{i, j, k}, {-1, -1, -1}, false};
    for (int a = 2; a >= 0; --a) {
      const int g = m.p[a];
      m.side[a] = axis[c][a].side_of(g);
      if (m.side[a] < 0) continue;
      m.p[a] = axis[c][a].mirror[m.side[a]] - g;
      m.ghost = true;
    }
    return m;
  }

  // Every field's value is loaded before any ghost is stored: as far as the compiler knows the
  // arrays may overlap, so loads and stores interleaved field by field would wait one memory
  // latency per field.
  SH_HD void operator()(int, int i, int j, int k) const {
    real v[kMaxFields];
#pragma unroll
    for (int c = 0; c < kMaxFields; ++c) {
      if (c >= count) break;
      const Chain m = chain(c, i, j, k);
      if (m.ghost) v[c] = f[c](m.p[0], m.p[1], m.p[2]);
    }
    const int g[3] = {i, j, k};
    // The chains again, not kept from the loads: six of them would double the registers.
#pragma unroll
    for (int c = 0; c < kMaxFields; ++c) {
      if (c >= count) break;
      const Chain m = chain(c, i, j, k);
      if (!m.ghost) continue;
      for (int a = 0; a < 3; ++a)
        if (m.side[a] >= 0) v[c] = axis[c][a].rule[m.side[a]].ghost(v[c], g[a] - m.p[a]);
      f[c](i, j, k) = v[c];
    }
  }
};

}  // namespace

void fill_ghosts(const Exec& ex, const Decomposition& dec, const std::vector<Field*>& fields,
                 const std::vector<SideRules>& rules, Lane lane, const Region& within) {
  if (fields.empty()) return;
  if (fields.size() > kMaxFields || rules.size() != fields.size())
    throw std::logic_error("fill_ghosts: up to six fields, one set of rules each");
  const Layout& l = fields[0]->layout();
  std::array<std::array<SideGhosts, 2>, 3> sides{};
  FillAllGhosts all;  // the same spans and rules, by field and axis
  all.count = static_cast<int>(fields.size());
  for (std::size_t c = 0; c < fields.size(); ++c) all.f[c] = fields[c]->view();
  for_each_boundary_side(dec, l, [&](int a, int side) {
    const int n = l.n[a], h = l.h[a];
    SideGhosts& k = sides[a][side];
    bool staggered_here = false;
    for (std::size_t c = 0; c < fields.size(); ++c) {
      const GhostRule& rule = rules[c][2 * a + side];
      if (rule.kind == GhostRule::keep) continue;
      // A staggered field's boundary point sits at index 0 (n on the high side).
      const bool stag = staggered(fields[c]->location(), a);
      staggered_here = staggered_here || (stag && side == 0);
      const int i = k.count++;
      const GhostSpan span = ghost_span(stag, side, n, h);
      k.f[i] = fields[c]->view();
      k.rule[i] = rule;
      k.lo[i] = span.lo;
      k.hi[i] = span.hi;
      k.mirror[i] = span.mirror;
      AxisGhosts& x = all.axis[c][a];
      x.rule[side] = rule;
      x.lo[side] = span.lo;
      x.hi[side] = span.hi;
      x.mirror[side] = span.mirror;
      x.on[side] = true;
    }
    if (k.count == 0) return;
    k.from = side == 0 ? -h : n;
    k.width = side == 0 ? (staggered_here ? h + 1 : h) : h;
  });
  // Everywhere, on blocks thicker than their halo along every filled axis: one launch over the
  // ghost slabs of every side. Else axis by axis (edges and corners from the axes before).
  bool thin = false;
  for (int a = 0; a < 3; ++a)
    thin = thin || ((sides[a][0].width + sides[a][1].width) > 0 && l.n[a] <= l.h[a]);
  const bool everywhere = within.lo == kEverywhere.lo && within.hi == kEverywhere.hi;
  if (everywhere && !thin) {
    std::array<Region, 6> slabs{};  // empty where a side has no ghosts to set
    for (int a = 0; a < 3; ++a)
      for (int side = 0; side < 2; ++side) {
        const SideGhosts& k = sides[a][side];
        if (k.width == 0) continue;
        Region& r = slabs[2 * a + side];
        r = l.all();
        r.lo[a] = k.from;
        r.hi[a] = k.from + k.width;
      }
    return for_each_regions<6>(ex, slabs, lane, all);
  }
  // Both sides of an axis in one launch where neither side's mirrored points reach the other's
  // ghosts (more than h points between).
  for (int a = 0; a < 3; ++a) {
    const auto launch = [&](const SideGhosts& low, const SideGhosts& high) {
      if (low.width + high.width == 0) return;
      Region r = l.all();
      for (int d = 0; d < 3; ++d) {
        r.lo[d] = std::max(r.lo[d], within.lo[d]);
        r.hi[d] = std::min(r.hi[d], within.hi[d]);
      }
      r.lo[a] = 0;
      r.hi[a] = low.width + high.width;
      for_each(ex, r, lane, FillGhosts{{low, high}, a});
    };
    if (l.n[a] > l.h[a]) {
      launch(sides[a][0], sides[a][1]);
    } else {
      launch(sides[a][0], SideGhosts{});
      launch(SideGhosts{}, sides[a][1]);
    }
  }
}

void fill_ghosts(const Exec& ex, const Decomposition& dec, Field& f, const SideRules& rules,
                 Lane lane) {
  fill_ghosts(ex, dec, std::vector<Field*>{&f}, std::vector<SideRules>{rules}, lane);
}

BcKind parse_bc_kind(const std::string& name) {
  if (name == "dirichlet") return BcKind::dirichlet;
  if (name == "neumann") return BcKind::neumann;
  throw Error("unknown boundary condition \"" + name + "\" (dirichlet or neumann)");
}

std::string to_string(BcKind kind) { return kind == BcKind::neumann ? "neumann" : "dirichlet"; }

GhostRule rule_of(const Bc& bc) {
  return bc.kind == BcKind::neumann ? GhostRule::zero_gradient() : GhostRule::fixed_value(bc.value);
}

SideRules rules_of(const SideBcs& bcs) {
  SideRules rules;
  for (int s = 0; s < 6; ++s) rules[s] = rule_of(bcs[s]);
  return rules;
}

SideRules zero_gradient_sides() {
  SideRules r;
  r.fill(GhostRule::zero_gradient());
  return r;
}

void apply_boundaries(const Exec& ex, const Decomposition& dec, Field& f, const SideBcs& bcs,
                      Lane lane) {
  fill_ghosts(ex, dec, f, rules_of(bcs), lane);
}

}  // namespace staghorn
