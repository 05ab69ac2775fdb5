#include "models/hydromech/porosity_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/exact_sum.hpp"
#include "core/for_each.hpp"
#include "models/hydromech/config.hpp"

namespace staghorn::hydromech {
namespace {

// Porosity-weighted sums over cells: phi dV, the excess over `ref` (times height for `moment`),
// the height of cells holding `ref` (else -inf), |phi|, or 1 for the cells holding at least `ref`
// in the plane of global index `plane` along the axis (else 0).
struct Measure {
  enum Kind { volume, excess, moment, peak_height, magnitude, in_plane };
  View phi;
  Kind kind;
  real weight, ref, z0, dz;
  int axis, offset;
  long long plane = 0;
  SH_HD real operator()(int i, int j, int k) const {
    const int idx[3] = {i, j, k};
    const real p = phi(i, j, k);
    const real z = z0 + (idx[axis] + offset + real(0.5)) * dz;
    if (kind == volume) return p * weight;
    if (kind == magnitude) return fabs(p);
    if (kind == peak_height) return p == ref ? z : -std::numeric_limits<real>::infinity();
    if (kind == in_plane) return idx[axis] + offset == plane && p >= ref ? real(1) : real(0);
    const real e = p > ref ? (p - ref) * weight : real(0);
    return kind == moment ? e * z : e;
  }
};

// The largest phi in each plane across `up` of the whole grid, bottom to top (every rank gets all
// of them): one reduction per local plane, then one collective.
std::vector<double> plane_maxima(const Exec& ex, const Decomposition& dec, const Field& phi,
                                 int up) {
  const Region in = phi.layout().interior();
  const int offset = dec.offset()[up];
  std::vector<double> local(dec.grid().n[up], -std::numeric_limits<double>::infinity());
  const Measure m{phi.view(), Measure::volume, 1, 0, 0, 0, up, offset};
  for (int k = in.lo[up]; k < in.hi[up]; ++k) {
    Region plane = in;
    plane.lo[up] = k, plane.hi[up] = k + 1;
    local[k + offset] = reduce(ex, plane, MaxOp{}, m);
  }
  return dec.comm().max(local);
}

// The chimney's top from the planes' maxima (centres z0 + (k + 1/2) dz): the chimney is the run of
// planes holding at least `threshold` that starts at the first such plane from the one holding
// `base` upwards; its front is where the maximum falls through the threshold above the run (linear
// between the centres, so the front moves smoothly, not a plane at a time). What is detached above
// it (a wave pinched off from the chimney, the open top's decompaction) is not its front. No such
// plane: base.
real front_of(const std::vector<double>& peak, real threshold, real base, real z0, real dz) {
  const int n = static_cast<int>(peak.size());
  // Clamped before the conversion: a base far outside the grid is its first or last plane.
  int k = static_cast<int>(std::clamp(std::floor((base - z0) / dz), 0.0, double(n - 1)));
  while (k < n && !(peak[k] >= threshold)) ++k;
  if (k == n) return base;
  while (k + 1 < n && peak[k + 1] >= threshold) ++k;
  const real z = z0 + (k + real(0.5)) * dz;
  if (k + 1 == n) return z;
  return z + dz * (peak[k] - threshold) / (peak[k] - peak[k + 1]);
}

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
        "Height (along the up axis) the chimney rises from, e.g. a reservoir's top: the front is "
        "the top of the first run of planes from here upwards holding the threshold (what is "
        "detached above it is not the chimney), the width is measured halfway between this and "
        "the front (null: the domain's bottom)");
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
  ChimneyStats s;
  s.front = front_of(plane_maxima(ex, dec, phi, up), threshold, base, z0, dz);
  if (g.dims() < 2) return s;
  const real half = base + (s.front - base) / 2;
  Measure m{phi.view(), Measure::in_plane, 1, threshold, z0, dz, up, dec.offset()[up]};
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
