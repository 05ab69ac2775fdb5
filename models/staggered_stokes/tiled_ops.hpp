#pragma once
// Device helpers of the tiled CUDA kernels of the staggered-Stokes module (the Stokes model's and
// the coupled hydro-mechanical variant's): the pointwise operators of kernels.hpp written for
// values held in registers and shared memory. Include only from code compiled by nvcc.

#include "models/staggered_stokes/kernels.hpp"

namespace staghorn::stokes::tiled {

// Edge viscosity from the four cells around (av4/hav4 of core/stencil.hpp, same order), and the
// largest of them (max4).
__device__ inline real edge_mu(bool harmonic, real a, real b, real c, real d) {
  if (harmonic) return real(4) / ((real(1) / a + real(1) / b) + (real(1) / c + real(1) / d));
  return real(0.25) * ((a + b) + (c + d));
}
__device__ inline real edge_max(real a, real b, real c, real d) {
  const real x = a > b ? a : b, y = c > d ? c : d;
  return x > y ? x : y;
}
// relax() of kernels.hpp with one division: (tau + 2 g e) / (1 + g / mu) = (tau + 2 g e) f with
// f = mu / (mu + g), which the normal stresses of a cell share.
__device__ inline real relax_factor(real g, real mu) { return mu / (mu + g); }
__device__ inline real relaxed_by(real factor, real tau, real g, real e) {
  return (tau + 2 * g * e) * factor;
}
__device__ inline real relaxed(real tau, real g, real mu, real e) {
  return relaxed_by(relax_factor(g, mu), tau, g, e);
}

// The shear strain rate on an edge, (du/db + dw/da) / 2, from the differences du, dw across it
// and the inverse spacings (Kinematics::exy ...).
__device__ inline real edge_strain(real du, real rdb, real dw, real rda) {
  return real(0.5) * (du * rdb + dw * rda);
}
// The new shear stress on an edge from the viscosities a, b, cc, d of the four cells around it
// (Pseudo::Txy_new ...): G~dtau from their largest, the edge viscosity from their mean; e: the
// strain rate (plus the old stress's term, with_old_stress).
__device__ inline real edge_stress(const Params& c, real tau, real e, real a, real b, real cc,
                                   real d) {
  return relaxed(tau, c.gdt * edge_max(a, b, cc, d), edge_mu(c.harmonic, a, b, cc, d), e);
}

}  // namespace staghorn::stokes::tiled
