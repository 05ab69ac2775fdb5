#include "models/hydromech/porosity_stats.hpp"

#include <cmath>
#include <limits>

#include "core/exact_sum.hpp"
#include "core/for_each.hpp"

namespace staghorn::hydromech {
namespace {

// Porosity-weighted sums over cells: phi dV, the excess over `ref` (times height for `moment`),
// the height of cells holding `ref` (else -inf), or |phi|.
struct Measure {
  enum Kind { volume, excess, moment, peak_height, magnitude };
  View phi;
  Kind kind;
  real weight, ref, z0, dz;
  int axis, offset;
  SH_HD real operator()(int i, int j, int k) const {
    const int idx[3] = {i, j, k};
    const real p = phi(i, j, k);
    const real z = z0 + (idx[axis] + offset + real(0.5)) * dz;
    if (kind == volume) return p * weight;
    if (kind == magnitude) return fabs(p);
    if (kind == peak_height) return p == ref ? z : -std::numeric_limits<real>::infinity();
    const real e = p > ref ? (p - ref) * weight : real(0);
    return kind == moment ? e * z : e;
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

real max_magnitude(const Exec& ex, const Decomposition& dec, const Field& f) {
  const Measure m{f.view(), Measure::magnitude, 1, 0, 0, 0, 0, 0};
  return dec.comm().max(reduce(ex, f.layout().interior(), MaxOp{}, m));
}

}  // namespace staghorn::hydromech
