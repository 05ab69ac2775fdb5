#include "core/boundary.hpp"

#include "core/error.hpp"
#include "core/for_each.hpp"

namespace staghorn {
namespace {

// Ghost g takes its value from the point mirrored at index m = mirror - g, across the boundary.
struct FillGhosts {
  View f;
  int axis, mirror;
  Bc bc;
  SH_HD void operator()(int i, int j, int k) const {
    int idx[3] = {i, j, k};
    const int g = idx[axis];
    idx[axis] = mirror - g;
    const real inside = f(idx[0], idx[1], idx[2]);
    real& ghost = f(i, j, k);
    if (bc.kind == BcKind::neumann) {
      ghost = inside;
    } else {
      ghost = (idx[axis] == g) ? bc.value : 2 * bc.value - inside;
    }
  }
};

}  // namespace

BcKind parse_bc_kind(const std::string& name) {
  if (name == "dirichlet") return BcKind::dirichlet;
  if (name == "neumann") return BcKind::neumann;
  throw Error("unknown boundary condition \"" + name + "\" (dirichlet or neumann)");
}

std::string to_string(BcKind kind) { return kind == BcKind::neumann ? "neumann" : "dirichlet"; }

void apply_boundaries(const Exec& ex, const Decomposition& dec, Field& f, const SideBcs& bcs,
                      Lane lane) {
  const Layout& l = f.layout();
  for_each_boundary_side(dec, l, [&](int a, int side) {
    const bool stag = staggered(f.location(), a);
    const int n = l.n[a], h = l.h[a];
    Region r = l.all();
    if (side == 0) {
      r.hi[a] = stag ? 1 : 0;  // a staggered field's boundary point sits at index 0
    } else {
      r.lo[a] = n;  // ... and at index n on the high side
      r.hi[a] = n + h;
    }
    const int mirror = side == 0 ? (stag ? 0 : -1) : (stag ? 2 * n : 2 * n - 1);
    for_each(ex, r, lane, FillGhosts{f.view(), a, mirror, bcs[2 * a + side]});
  });
}

}  // namespace staghorn
