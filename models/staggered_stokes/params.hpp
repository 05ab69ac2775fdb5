#pragma once
// The accelerated pseudo-transient constants of the staggered-Stokes iterations, in one place for
// every model that solves them (Räss et al. 2022, docs/models/stokes.md):
//   Vp dtau = CFL dx_min / sqrt(dims),  rho~ = Re mu_max / (Vp L),
//   G~ = rho~ Vp^2 / (r + 2),  K~ = r G~,
// with L the largest extent of the domain; the kernels scale them by the local viscosity.

#include <array>

#include "core/decomposition.hpp"
#include "models/staggered_stokes/kernels.hpp"

namespace staghorn::stokes {

struct PtChoice {
  real Re = 0, r = 0, cfl = 0;
  std::array<real, 3> gravity{};  // body force per unit density (the buoyancy's direction)
  bool harmonic = false;          // harmonic edge viscosity (else arithmetic)
  bool deviatoric = true;         // Params::deviatoric: false for incompressible flow
};

// The constants of one iteration on this rank's block of `dec`.
Params pt_params(const Decomposition& dec, const PtChoice& choice);

}  // namespace staghorn::stokes
