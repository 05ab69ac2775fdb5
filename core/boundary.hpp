#pragma once
#include <array>
#include <string>
#include <vector>

#include "core/decomposition.hpp"
#include "core/field.hpp"

namespace staghorn {

// Physical boundary conditions act through ghost cells: after the halo exchange, the ghosts of a
// bounded side are set so that the stencils need no special cases at the boundary.
//
// Every wall condition of every model is one GhostRule: ghost point g takes its value from the
// point mirrored across the boundary, m = mirror - g, where the mirror index follows from the
// field's stagger location (a cell-centred field's boundary lies between cells -1 and 0; a field
// staggered along the axis has its boundary point at index 0, or n on the high side).
struct GhostRule {
  enum Kind : unsigned char {
    keep,           // the ghosts are left as they are (a side whose values are prescribed)
    symmetric,      // ghost = inside + step * (g - m): zero gradient, or a fixed gradient
                    // along the axis (step per cell)
    antisymmetric,  // ghost = 2 value - inside: `value` on the boundary (on the point itself
                    // for a staggered field)
  };
  Kind kind = symmetric;
  real value = 0;  // antisymmetric: the boundary value
  real step = 0;   // symmetric: the change per cell along the axis (gradient times spacing)

  static GhostRule zero_gradient() { return {symmetric, 0, 0}; }
  static GhostRule fixed_gradient(real step) { return {symmetric, 0, step}; }
  static GhostRule fixed_value(real value) { return {antisymmetric, value, 0}; }

  // The ghost from the mirrored point; `distance` = g - m (0: the staggered boundary point).
  SH_HD real ghost(real inside, int distance) const {
    if (kind == antisymmetric) return distance == 0 ? value : 2 * value - inside;
    return step == 0 ? inside : inside + step * distance;
  }
};

// One rule per side, ordered x_lo, x_hi, y_lo, y_hi, z_lo, z_hi.
using SideRules = std::array<GhostRule, 6>;

// The ghosts of one side (0: low, 1: high) along an axis of n cells with halo h: indices
// [lo, hi), a staggered field's boundary point included, ghost g mirrored from mirror - g.
struct GhostSpan {
  int lo, hi, mirror;
};
SH_HD constexpr GhostSpan ghost_span(bool staggered, int side, int n, int h) {
  return side == 0 ? GhostSpan{-h, staggered ? 1 : 0, staggered ? 0 : -1}
                   : GhostSpan{n, n + h, staggered ? 2 * n : 2 * n - 1};
}

// Sets ghost g of the points v along an axis (v[i]: point i) from its mirrored point by `rule`:
// the value fill_ghosts gives it, for a kernel that sets a row's ghosts as it writes the row.
SH_HD inline void set_ghost(real* v, const GhostRule& rule, const GhostSpan& span, int g) {
  const int m = span.mirror - g;
  v[g] = rule.ghost(v[m], g - m);
}

// Calls f(axis, side) (side 0: low, 1: high) for every side of this rank's block that is a physical
// boundary of the domain: an axis with ghosts (halo) that is not periodic, at the domain's edge.
template <class F>
void for_each_boundary_side(const Decomposition& dec, const Layout& l, F&& f) {
  for (int a = 0; a < 3; ++a) {
    if (l.h[a] == 0 || dec.grid().periodic[a]) continue;
    for (int side = 0; side < 2; ++side)
      if (side == 0 ? dec.at_low(a) : dec.at_high(a)) f(a, side);
  }
}

// Fills the ghosts of up to six fields (of one layout) on the sides of this rank's block that
// are physical boundaries, field c by rules[c], one launch per axis (both its sides, where the
// block has more points along it than the halo is wide; else one per side). Axes are treated in
// order x, y, z across the whole padded extent of the others, so edges and corners are filled too.
// `within`: only the ghosts whose other coordinates lie in it (those whose mirrors a change inside
// it can reach, when it holds the change and h + 1 points around it).
inline constexpr Region kEverywhere{{-(1 << 30), -(1 << 30), -(1 << 30)},
                                    {1 << 30, 1 << 30, 1 << 30}};
void fill_ghosts(const Exec& ex, const Decomposition& dec, const std::vector<Field*>& fields,
                 const std::vector<SideRules>& rules, Lane lane = Lane::inner,
                 const Region& within = kEverywhere);
void fill_ghosts(const Exec& ex, const Decomposition& dec, Field& f, const SideRules& rules,
                 Lane lane = Lane::inner);

// Fields with their rules, filled together by fill_ghosts (one launch per axis for all of them).
class GhostFill {
 public:
  GhostFill& add(Field& f, const SideRules& rules) {
    fields_.push_back(&f);
    rules_.push_back(rules);
    return *this;
  }
  void apply(const Exec& ex, const Decomposition& dec, Lane lane = Lane::inner,
             const Region& within = kEverywhere) const {
    fill_ghosts(ex, dec, fields_, rules_, lane, within);
  }

 private:
  std::vector<Field*> fields_;
  std::vector<SideRules> rules_;
};

// The two conditions of the configuration files, as rules.
enum class BcKind { dirichlet, neumann };

struct Bc {
  BcKind kind = BcKind::dirichlet;
  real value = 0;  // the boundary value (Dirichlet); Neumann is zero-gradient
};

BcKind parse_bc_kind(const std::string& name);
std::string to_string(BcKind kind);

using SideBcs = std::array<Bc, 6>;

GhostRule rule_of(const Bc& bc);
SideRules rules_of(const SideBcs& bcs);  // rule_of each side's condition
SideRules zero_gradient_sides();

// fill_ghosts with the rule of each side's condition.
void apply_boundaries(const Exec& ex, const Decomposition& dec, Field& f, const SideBcs& bcs,
                      Lane lane = Lane::inner);

}  // namespace staghorn
