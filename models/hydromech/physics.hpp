#pragma once
// Material laws and flux building blocks of two-phase viscous compaction (porosity waves), shared
// by the reduced (porosity, effective pressure) variant and a coupled (solid Stokes + Darcy) one.
// Equations and scaling: docs/models/hydromech.md. The laws are written for the small-porosity
// (Boussinesq) limit, where the factors (1 - phi) are 1; the coupled variant's two-phase system
// hands each cell its factor 1 / (1 - phi) (and a strain-rate factor of the bulk viscosity) as
// `scale`, which multiplies the compaction rate per unit effective pressure (scale = 1: the limit,
// the same bits).

#include <cmath>

#include "core/exact_float.hpp"
#include "core/fast_math.hpp"
#include "core/int_power.hpp"
#include "core/platform.hpp"
#include "core/vector_math.hpp"

namespace staghorn::hydromech {

// The compaction/decompaction switch w: the bulk viscosity eta / w goes from eta where the solid
// compacts (Pe >> smoothing) to eta / R where it decompacts (Pe << -smoothing) as
// eta (1 - (1 - 1/R) s), s = (1 - tanh y) / 2, y = Pe / smoothing: the viscosity itself is
// switched by the tanh, not its reciprocal. Then the compaction rate Pe w(Pe) grows with Pe for
// every R (its slope w + Pe w' stays above 0.72 w); a tanh in w = 1 / eta makes the rate fall with
// Pe over y ~ 0.5..2 once R exceeds about 12, a negative bulk viscosity on which the iterations
// diverge (docs/journal/hydromech-coupled.md).
// With E = e^(2y) the tanh turns into w = R (1 + E) / (1 + R E): one exp and one division; w = R
// to the last bit where E is tiny and 1 within rounding where it is large. y is capped at
// kFlatSwitch (float: kFlatSwitchFloat), beyond which w is 1 within rounding, so that R E stays
// finite; a NaN passes through.
// The slope of the compaction rate over the switch, in units of eta's:
// d(Pe w)/dPe = w + y dw/dy = w - 2 y (R - 1) (R E / den) / den, den = 1 + R E.
constexpr double kFlatSwitch = 300;
constexpr float kFlatSwitchFloat = 30;

// In single precision for the reduced variant's pseudo-step, its operations rounded alike on host
// and device (core/exact_float.hpp; nvcc would fuse them).
SH_HD inline float switch_slope(float R, float y) {
  using namespace exact;
  const float yc = y > kFlatSwitchFloat ? kFlatSwitchFloat : y;
  const float E = vmath::exp_normal(yc + yc), RE = mul(R, E);
  const float r = rcp(add(1.0f, RE));
  const float w = mul(mul(R, add(1.0f, E)), r);
  return add(w, -mul(mul(mul(yc + yc, add(R, -1.0f)), mul(RE, r)), r));
}

// The switch w at an effective pressure and the slope of the compaction rate Pe w(Pe) there: the
// Jacobian a pseudo-step needs; w alone underestimates it where the switch turns, up to 3.5-fold
// at R = 100 (5.4 at 1000).
struct Weakening {
  real w, slope;
};

struct Material {
  real k0 = 1;         // permeability over fluid viscosity at phi = phi0
  real n = 3;          // permeability exponent: k = k0 (phi/phi0)^n
  int n_int = 3;       // n when it is a whole number below 16, else -1
  real eta0 = 1;       // bulk viscosity at phi = phi0 in compaction
  int m = 1;           // bulk viscosity exponent: eta = eta0 (phi0/phi)^m, m = 0 or 1
  real phi0 = 1;       // reference porosity
  real rphi0 = 1;      // 1 / phi0
  real weakening = 1;  // R: the bulk viscosity is eta / R where Pe < 0 (decompaction)
  real smoothing = 0;  // Pe width of the compaction/decompaction switch (0: sharp)
  // Reciprocals: kernels multiply (a double division costs about ten multiplications on a GPU).
  real reta0 = 1;       // 1 / eta0
  real rsmoothing = 0;  // 1 / smoothing (where smoothing > 0)
  real buoyancy = 1;    // (rho_s - rho_f) g, acting along the up axis

  // k(phi), with phi < 0 (a transient undershoot) treated as zero porosity.
  SH_HD real permeability(real phi) const {
    const real x = (phi > 0 ? phi : real(0)) * rphi0;
    return k0 * (n_int >= 0 ? int_power(x, n_int) : pow(x, n));
  }

  // The factor dividing the bulk viscosity: 1 where the solid compacts (Pe > 0), R where it
  // decompacts; the viscosity switched by a tanh over a Pe range of `smoothing` when that is
  // positive (weakening_of).
  SH_HD real weakening_factor(real Pe) const { return weakening_of(Pe).w; }
  // The same with the slope of Pe w(Pe) (Weakening).
  SH_HD Weakening weakening_of(real Pe) const {
    if (smoothing <= 0) {
      const real w = Pe < 0 ? weakening : real(1);
      return {w, w};
    }
    const real y = Pe * rsmoothing, yc = y > real(kFlatSwitch) ? real(kFlatSwitch) : y;
    const real E = vmath::exp_normal(yc + yc), RE = weakening * E;
    const real r = divide(real(1), real(1) + RE), w = weakening * (real(1) + E) * r;
    return {w, w - (yc + yc) * (weakening - 1) * (RE * r) * r};
  }

  // 1 / eta_phi: compaction rate per unit effective pressure.
  SH_HD real compaction_coefficient(real phi, real Pe) const {
    return compaction_coefficient(phi, Pe, weakening_factor(Pe));
  }
  // The same with the weakening factor w = weakening_factor(Pe) already at hand, times `scale`
  // (with w the slope of Weakening: the derivative d/dPe of the compaction rate).
  SH_HD real compaction_coefficient(real phi, real /*Pe*/, real w, real scale = 1) const {
    return (m == 0 ? w * reta0 : w * reta0 * phi * rphi0) * scale;
  }

  // Porosity at the end of a step of dphi/dt = -Pe / eta_phi(phi, Pe) from phi_old, with Pe held
  // at its value at the new time (implicit in Pe): m = 0: phi_old - dt Pe w / eta0; m = 1: the
  // exact exp(-dt Pe w / (eta0 phi0)) growth or decay, positive and finite for any Pe (backward
  // Euler's phi_old / (1 + dt Pe w / (eta0 phi0)) blows up in strong decompaction).
  SH_HD real porosity(real phi_old, real Pe, real dt) const {
    return porosity(phi_old, Pe, weakening_factor(Pe), dt);
  }
  SH_HD real porosity(real phi_old, real Pe, real w, real dt) const {
    const real x = dt * Pe * w * reta0;
    // exp_normal: the exponent is at least -kMaxChange, so exp's own bits.
    return m == 0 ? phi_old - x : phi_old * vmath::exp_normal(bounded_decay(-x * rphi0));
  }
  // The coupled variant's, with its per-cell `scale` and the growth bounded too.
  SH_HD real porosity(real phi_old, real Pe, real w, real dt, real scale) const {
    const real x = dt * Pe * w * reta0 * scale;
    return m == 0 ? phi_old - x : phi_old * vmath::exp_normal(bounded_exponent(-x * rphi0));
  }

  // The step's mean compaction rate (phi_old - phi) / dt = Pe / eta_phi(phi_mean, Pe), phi_mean
  // the logarithmic mean of phi_old and phi for m = 1 (without the cancellation of a difference).
  SH_HD real compaction_rate(real phi_old, real Pe, real dt) const {
    return compaction_rate(phi_old, Pe, weakening_factor(Pe), dt);
  }
  SH_HD real compaction_rate(real phi_old, real Pe, real w, real dt, real scale = 1) const {
    if (m == 0) return Pe * w * reta0 * scale;
    const real x = dt * Pe * w * reta0 * scale;
    return -phi_old * expm1(bounded_exponent(-x * rphi0)) / dt;
  }

  // porosity() and compaction_rate() of the same (phi_old, Pe, w) together: for m = 1 both from
  // one exponential (exp_expm1 of core/fast_math.hpp; each within rounding of its own function).
  struct PorosityAndRate {
    real phi, rate;
  };
  SH_HD PorosityAndRate porosity_and_rate(real phi_old, real Pe, real w, real dt,
                                          real scale = 1) const {
    const real x = dt * Pe * w * reta0 * scale;
    if (m == 0) return {phi_old - x, Pe * w * reta0 * scale};
    const ExpPair g = exp_expm1(bounded_exponent(-x * rphi0));
    return {phi_old * g.exp, divide(-phi_old * g.expm1, dt)};
  }

  // The exponent's bounds: in one step the porosity shrinks or grows at most e^50-fold. No
  // converged step comes near them. The coupled variant bounds both ways (the overloads taking
  // `scale`): a wild iterate (strong decompaction weakening early in a solve) stays finite, for
  // the iterations to recover from or the divergence check to stop. The reduced one bounds the
  // decay only (a state whose growth overflows is caught by its finite-state checks): its generic
  // kernel evaluates seven porosities per cell, and the second bound costs it measurably.
  static constexpr int kMaxChange = 50;
  SH_HD static real bounded_decay(real y) { return fmax(y, real(-kMaxChange)); }
  SH_HD static real bounded_exponent(real y) { return fmin(bounded_decay(y), real(kMaxChange)); }
};

// What drives the Darcy flux across a face: grad Pe + buoyancy along the face normal.
SH_HD inline real darcy_drive(real Pe_lo, real Pe_hi, real rdx, real body) {
  return (Pe_hi - Pe_lo) * rdx + body;
}

// Darcy flux across a face (positive towards the high side): q = k (dPe/dx + buoyancy), the
// fluid's flux relative to the solid when the total pressure is lithostatic. `body` is the
// buoyancy's component along the face normal.
SH_HD inline real darcy_flux(real k_face, real Pe_lo, real Pe_hi, real rdx, real body) {
  return k_face * darcy_drive(Pe_lo, Pe_hi, rdx, body);
}

}  // namespace staghorn::hydromech
