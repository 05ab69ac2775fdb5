#include "models/hydromech/boundary.hpp"

#include "core/boundary.hpp"
#include "core/error.hpp"
#include "core/for_each.hpp"

namespace staghorn::hydromech {
namespace {

// Ghost g from the cells g + step and g + 2 step (step: +1 on a low side, -1 on a high side).
struct LogLinearGhost {
  View f;
  int axis, step;
  real offset;
  SH_HD void operator()(int i, int j, int k) const {
    int idx[3] = {i, j, k};
    idx[axis] += step;
    const real p0 = f(idx[0], idx[1], idx[2]) + offset;
    idx[axis] += step;
    const real p1 = f(idx[0], idx[1], idx[2]) + offset;
    f(i, j, k) = (p0 > 0 && p1 > 0 ? p0 * p0 / p1 : p0) - offset;
  }
};

}  // namespace

PeBcKind parse_pe_bc(const std::string& name) {
  if (name == "closed") return PeBcKind::closed;
  if (name == "dirichlet") return PeBcKind::dirichlet;
  throw Error("unknown pressure boundary condition \"" + name + "\" (closed or dirichlet)");
}

SideRules pe_rules(const Grid& grid, const PeBcs& bcs, const real body[3]) {
  SideRules rules;
  for (int s = 0; s < 6; ++s) {
    // Zero flux: (Pe_g - Pe_m) / ((g - m) dx) + buoyancy = 0.
    const int a = s / 2;
    const real drop = a < grid.dims() ? body[a] * grid.spacing(a) : 0;
    rules[s] = bcs[s].kind == PeBcKind::closed ? GhostRule::fixed_gradient(-drop)
                                               : GhostRule::fixed_value(bcs[s].value);
  }
  return rules;
}

void apply_pe_boundaries(const Exec& ex, const Decomposition& dec, Field& Pe, const PeBcs& bcs,
                         const real body[3], Lane lane) {
  fill_ghosts(ex, dec, Pe, pe_rules(dec.grid(), bcs, body), lane);
}

RowEndGhosts pe_row_end_ghosts(const Decomposition& dec, const Layout& l, const PeBcs& bcs,
                               const real body[3]) {
  const SideRules rules = pe_rules(dec.grid(), bcs, body);
  RowEndGhosts g{{GhostRule::keep}, {GhostRule::keep}, l.n.x, l.h.x};
  for_each_boundary_side(dec, l, [&](int a, int side) {
    if (a == 0) (side == 0 ? g.lo : g.hi) = rules[side];
  });
  return g;
}

void apply_pe_boundaries_beyond_x(const Exec& ex, const Decomposition& dec, Field& Pe,
                                  const PeBcs& bcs, const real body[3]) {
  SideRules rules = pe_rules(dec.grid(), bcs, body);
  rules[0].kind = rules[1].kind = GhostRule::keep;
  fill_ghosts(ex, dec, Pe, rules);
}

void extrapolate_porosity_at_open_sides(const Exec& ex, const Decomposition& dec, Field& f,
                                        const PeBcs& bcs, real offset, Lane lane) {
  const Layout& l = f.layout();
  for_each_boundary_side(dec, l, [&](int a, int side) {
    if (bcs[2 * a + side].kind != PeBcKind::dirichlet) return;
    Region r = l.all();
    r.lo[a] = side == 0 ? -1 : l.n[a];
    r.hi[a] = r.lo[a] + 1;
    for_each(ex, r, lane, LogLinearGhost{f.view(), a, side == 0 ? 1 : -1, offset});
  });
}

}  // namespace staghorn::hydromech
