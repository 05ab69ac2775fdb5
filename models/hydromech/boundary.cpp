#include "models/hydromech/boundary.hpp"

#include "core/boundary.hpp"
#include "core/error.hpp"
#include "core/for_each.hpp"

namespace staghorn::hydromech {
namespace {

// Ghost g mirrors interior point m = mirror - g across the side.
struct FillPeGhosts {
  View f;
  int axis, mirror;
  PeBc bc;
  real drop;  // buoyancy * dx: the Pe step per cell of a no-flux gradient
  SH_HD void operator()(int i, int j, int k) const {
    int idx[3] = {i, j, k};
    const int g = idx[axis];
    idx[axis] = mirror - g;
    const real inside = f(idx[0], idx[1], idx[2]);
    // Zero flux: (Pe_g - Pe_m) / ((g - m) dx) + buoyancy = 0.
    f(i, j, k) =
        bc.kind == PeBcKind::closed ? inside - drop * (g - idx[axis]) : 2 * bc.value - inside;
  }
};

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

void apply_pe_boundaries(const Exec& ex, const Decomposition& dec, Field& Pe, const PeBcs& bcs,
                         const real body[3], Lane lane) {
  const Layout& l = Pe.layout();
  for_each_boundary_side(dec, l, [&](int a, int side) {
    const int n = l.n[a], h = l.h[a];
    const real drop = body[a] * dec.grid().spacing(a);
    Region r = l.all();
    if (side == 0) {
      r.hi[a] = 0;
    } else {
      r.lo[a] = n;
      r.hi[a] = n + h;
    }
    const int mirror = side == 0 ? -1 : 2 * n - 1;
    for_each(ex, r, lane, FillPeGhosts{Pe.view(), a, mirror, bcs[2 * a + side], drop});
  });
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
