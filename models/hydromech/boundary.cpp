#include "models/hydromech/boundary.hpp"

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

}  // namespace

PeBcKind parse_pe_bc(const std::string& name) {
  if (name == "closed") return PeBcKind::closed;
  if (name == "dirichlet") return PeBcKind::dirichlet;
  throw Error("unknown pressure boundary condition \"" + name + "\" (closed or dirichlet)");
}

void apply_pe_boundaries(const Exec& ex, const Decomposition& dec, Field& Pe, const PeBcs& bcs,
                         const real body[3], Lane lane) {
  const Layout& l = Pe.layout();
  for (int a = 0; a < 3; ++a) {
    if (l.h[a] == 0 || dec.grid().periodic[a]) continue;
    const int n = l.n[a], h = l.h[a];
    const real drop = body[a] * dec.grid().spacing(a);
    for (int side = 0; side < 2; ++side) {
      if (side == 0 ? !dec.at_low(a) : !dec.at_high(a)) continue;
      Region r = l.all();
      if (side == 0) {
        r.hi[a] = 0;
      } else {
        r.lo[a] = n;
        r.hi[a] = n + h;
      }
      const int mirror = side == 0 ? -1 : 2 * n - 1;
      for_each(ex, r, lane, FillPeGhosts{Pe.view(), a, mirror, bcs[2 * a + side], drop});
    }
  }
}

}  // namespace staghorn::hydromech
