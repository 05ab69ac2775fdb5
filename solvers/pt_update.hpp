#pragma once
// The accelerated pseudo-transient update (second-order Richardson / Frankel 1950; Räss et al.
// 2022, GMD): one iteration of a damped wave equation in pseudo-time whose steady state solves
// R(A) = 0. Used inside models' fused kernels, cell by cell, with pseudo-steps from the physics.
//
// For a mode with eigenvalue -lambda of the linearised residual, mu = dtau * lambda, the error
// obeys z^2 - (2 - d - mu) z + (1 - d) = 0. It is stable while mu <= 4 - 2d; the slowest mode
// (mu_min) is critically damped by d = 1 - (1 - sqrt(mu_min))^2, which makes the error contract by
// 1 - sqrt(mu_min) per iteration: iterations grow like 1/sqrt(mu_min) ~ n, not n^2.

#include "core/exact_float.hpp"
#include "core/platform.hpp"

namespace staghorn::pt {

struct Step {
  real dtau;  // pseudo time step
  real damp;  // d: the fraction of the pseudo-velocity forgotten each iteration
};

// Beyond kFloatSafe, a would overflow float: optimal_step then uses the large-a limit.
constexpr real kFloatSafe = 1e30;

// The single-precision part of optimal_step: dtau = dt * factor where a < kFloatSafe.
struct FloatStep {
  float factor;
  float damp;
};

// kFloatSafe in float: no float lies between the two, so that a float x is below kFloatSafe
// exactly when it is below this.
constexpr float kFloatSafeSingle = static_cast<float>(kFloatSafe);
static_assert(static_cast<real>(kFloatSafeSingle) > kFloatSafe, "rounded up: none between them");

// float_step of arguments already in single precision (a model that computes them so): a and b
// are clamped at kFloatSafe as float_step clamps its doubles, so both give the same bits for the
// same values.
SH_HD inline FloatStep single_step(float fa, float fb, float cfl) {
  using namespace exact;
  fa = fa < kFloatSafeSingle ? fa : kFloatSafeSingle;
  fb = fb < kFloatSafeSingle ? fb : kFloatSafeSingle;
  const float cfl_over_max = div(cfl, add(1.0f, mul(4.0f, fa)));
  float mu_min = mul(mul(4.0f, cfl_over_max), add(1.0f, fb));
  mu_min = mu_min < 1.0f ? mu_min : 1.0f;
  const float s = add(1.0f, -sqrt(mu_min));
  const float damp = add(1.0f, -mul(s, s));
  return {mul(add(4.0f, -mul(2.0f, damp)), cfl_over_max), damp};
}

// An argument of optimal_step in single precision: held at kFloatSafe, then rounded.
SH_HD inline float single_argument(real a) {
  return static_cast<float>(a < kFloatSafe ? a : kFloatSafe);
}

SH_HD inline FloatStep float_step(real a, real b, float cfl) {
  return single_step(single_argument(a), single_argument(b), cfl);
}

// dtau where a >= kFloatSafe: factor ~ cfl / a underflows, use dt / a = 1 / (D sum 1/dx^2).
SH_HD inline real large_a_dtau(real a, real dt, float cfl, float damp) {
  using namespace exact;
  return static_cast<real>(add(4.0f, -mul(2.0f, damp))) * cfl * dt / (4 * a);
}

// What optimal_step takes: a kernel that splits it (float_step first, the large-a branch only
// where needed) keeps the arguments.
struct StepArguments {
  real a, b, dt;
};

// The step where a < kFloatSafe (no large_a_dtau): optimal_step's own value there.
SH_HD inline Step float_safe_step(const FloatStep& f, real dt) {
  return {dt * static_cast<real>(f.factor), static_cast<real>(f.damp)};
}

// Optimal local step for an implicit time step dt whose residual's Jacobian has, near this point,
// largest and smallest eigenvalues (1 + 4 a) / dt and (1 + b) / dt: a and b are dimensionless
// (a = D dt sum(1/dx^2) for diffusion). cfl < 1 is a safety factor.
// The step sets how fast the iterations converge, not what they converge to, so it is computed in
// single precision (no double division or square root per cell), rounded alike on all backends.
// Kernels that know every a of a row is below kFloatSafe may skip large_a_dtau (same bits).
SH_HD inline Step optimal_step(real a, real b, real dt, float cfl) {
  const FloatStep f = float_step(a, b, cfl);
  const real dtau = a < kFloatSafe ? float_safe_step(f, dt).dtau : large_a_dtau(a, dt, cfl, f.damp);
  return {dtau, static_cast<real>(f.damp)};
}

// One damped update of unknown A with residual R; v is dA/dtau, kept between iterations.
SH_HD inline real advance(real A, real R, real& v, const Step& s) {
  v = R + (real(1) - s.damp) * v;
  return A + s.dtau * v;
}

}  // namespace staghorn::pt
