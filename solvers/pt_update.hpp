#pragma once
// The accelerated pseudo-transient update (second-order Richardson / Frankel 1950; Räss et al.
// 2022, GMD): one iteration of a damped wave equation in pseudo-time whose steady state solves
// R(A) = 0. Used inside models' fused kernels, cell by cell, with pseudo-steps from the physics.
//
// For a mode with eigenvalue -lambda of the linearised residual, mu = dtau * lambda, the error
// obeys z^2 - (2 - d - mu) z + (1 - d) = 0. It is stable while mu <= 4 - 2d; the slowest mode
// (mu_min) is critically damped by d = 1 - (1 - sqrt(mu_min))^2, which makes the error contract by
// 1 - sqrt(mu_min) per iteration: iterations grow like 1/sqrt(mu_min) ~ n, not n^2.

#include <cmath>

#include "core/platform.hpp"

namespace staghorn::pt {

struct Step {
  real dtau;  // pseudo time step
  real damp;  // d: the fraction of the pseudo-velocity forgotten each iteration
};

// Optimal local step from the largest and smallest eigenvalues of the residual's Jacobian near this
// point (lambda_max from the stencil, lambda_min from the domain's slowest mode), with safety
// factor cfl < 1.
SH_HD inline Step optimal_step(real lambda_max, real lambda_min, real cfl) {
  const real cfl_over_max = cfl / lambda_max;
  real mu_min = real(4) * cfl_over_max * lambda_min;
  mu_min = mu_min < real(1) ? mu_min : real(1);
  const real s = real(1) - sqrt(mu_min);
  const real damp = real(1) - s * s;
  return {(real(4) - real(2) * damp) * cfl_over_max, damp};
}

// One damped update of unknown A with residual R; v is dA/dtau, kept between iterations.
SH_HD inline real advance(real A, real R, real& v, const Step& s) {
  v = R + (real(1) - s.damp) * v;
  return A + s.dtau * v;
}

}  // namespace staghorn::pt
