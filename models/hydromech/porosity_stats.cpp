#include "models/hydromech/porosity_stats.hpp"

#include <cmath>
#include <limits>

#include "core/exact_sum.hpp"
#include "core/for_each.hpp"
#include "models/hydromech/config.hpp"

namespace staghorn::hydromech {
namespace {

// Porosity-weighted sums over cells: phi dV, the excess over `ref` (times height for `moment`),
// the height of cells holding `ref` (else -inf), |phi|, where phi falls through `ref` above cells
// holding at least `ref` (else -inf), or 1 for the cells holding at least `ref` in the plane of global index
// `plane` along the axis (else 0).
struct Measure {
  enum Kind { volume, excess, moment, peak_height, magnitude, above_height, in_plane };
  View phi;
  Kind kind;
  real weight, ref, z0, dz;
  int axis, offset;
  long long plane = 0;
  long long n = 0;  // cells along the axis (the whole grid's)
  SH_HD real operator()(int i, int j, int k) const {
    const int idx[3] = {i, j, k};
    const real p = phi(i, j, k);
    const real z = z0 + (idx[axis] + offset + real(0.5)) * dz;
    if (kind == volume) return p * weight;
    if (kind == magnitude) return fabs(p);
    if (kind == peak_height) return p == ref ? z : -std::numeric_limits<real>::infinity();
    if (kind == above_height)
      return p >= ref ? crossing(i, j, k, p, z) : -std::numeric_limits<real>::infinity();
    if (kind == in_plane) return idx[axis] + offset == plane && p >= ref ? real(1) : real(0);
    const real e = p > ref ? (p - ref) * weight : real(0);
    return kind == moment ? e * z : e;
  }
  // Where phi falls through `ref` above cell (i, j, k) (phi >= ref there), linear between the two
  // cells' centres; the centre itself where the cell above holds at least ref or is outside (so
  // the front moves smoothly, not a cell at a time). The cell above may be in the halo.
  SH_HD real crossing(int i, int j, int k, real p, real z) const {
    const int idx[3] = {i, j, k};
    if (idx[axis] + offset + 1 >= n) return z;
    const real q = phi(i + (axis == 0), j + (axis == 1), k + (axis == 2));
    return q < ref ? z + dz * (p - ref) / (p - q) : z;
  }
};

}  // namespace

PorosityStats porosity_stats(const Exec& ex, const Decomposition& dec, const Field& phi,
                             real phi_ref, int up) {
  const Grid& g = dec.grid();
  const Comm& comm = dec.comm();
  const Region in = phi.layout().interior();
  real dV = 1;
  for (int a = 0; a < g.dims(); ++a) dV *= g.spacing(a);
  Measure m{phi.view(),
            Measure::volume,
            dV,
            phi_ref,
            static_cast<real>(g.origin[up]),
            static_cast<real>(g.spacing(up)),
            up,
            dec.offset()[up]};
  PorosityStats s;
  s.fluid = exact_sum(ex, comm, in, m);
  m.kind = Measure::excess;
  const real excess = exact_sum(ex, comm, in, m);
  m.kind = Measure::moment;
  const real moment = exact_sum(ex, comm, in, m);
  s.excess_centroid = excess > 0 ? moment / excess : 0;
  m.weight = 1;
  m.kind = Measure::volume;
  s.phi_max = comm.max(reduce(ex, in, MaxOp{}, m));
  m.kind = Measure::peak_height, m.ref = s.phi_max;
  s.peak_height = comm.max(reduce(ex, in, MaxOp{}, m));
  return s;
}

void ChimneyOptions::add_to(io::Schema& s) {
  using io::Type;
  s.add("hydromech.chimney.threshold", Type::number, nullptr,
        "Porosity that counts as chimney in the diagnostics front_height, front_speed and "
        "chimney_width (null: 2 phi0)")
      .above(0);
  s.add("hydromech.chimney.base", Type::number, nullptr,
        "Height (along the up axis) the chimney rises from, e.g. a reservoir's top: its width is "
        "measured halfway between this and the front (null: the domain's bottom)");
}

ChimneyOptions ChimneyOptions::from(const io::json& c) {
  return {optional_number(c, "hydromech.chimney.threshold"),
          optional_number(c, "hydromech.chimney.base")};
}

ChimneyStats chimney_stats(const Exec& ex, const Decomposition& dec, const Field& phi,
                           real threshold, real base, int up) {
  const Grid& g = dec.grid();
  const Comm& comm = dec.comm();
  const Region in = phi.layout().interior();
  const real dz = static_cast<real>(g.spacing(up)), z0 = static_cast<real>(g.origin[up]);
  Measure m{phi.view(), Measure::above_height, 1, threshold, z0, dz, up, dec.offset()[up]};
  m.n = g.n[up];
  ChimneyStats s;
  const real top = comm.max(reduce(ex, in, MaxOp{}, m));
  s.front = std::isfinite(top) ? top : base;
  if (g.dims() < 2) return s;
  const real half = base + (s.front - base) / 2;
  m.kind = Measure::in_plane;
  m.plane = static_cast<long long>(std::floor((half - z0) / dz));
  if (m.plane < 0 || m.plane >= g.n[up]) return s;
  const real cells = exact_sum(ex, comm, in, m);
  real area = cells;
  for (int a = 0; a < g.dims(); ++a)
    if (a != up) area *= static_cast<real>(g.spacing(a));
  s.width = g.dims() == 2 ? area : 2 * std::sqrt(area / real(M_PI));
  return s;
}

real max_magnitude(const Exec& ex, const Decomposition& dec, const Field& f) {
  const Measure m{f.view(), Measure::magnitude, 1, 0, 0, 0, 0, 0};
  return dec.comm().max(reduce(ex, f.layout().interior(), MaxOp{}, m));
}

}  // namespace staghorn::hydromech
