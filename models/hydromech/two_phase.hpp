#pragma once
// What the coupled variant's two-phase system adds to the small-porosity limit, point by point
// (docs/models/hydromech-coupled.md):
//   - the porosity carried by the solid: over a step the fluid volume obeys
//       phi_new = A - dt E,   A = phi_old - dt div(phi v_s^old)   (conservative, upwind),
//     E = Pe / (eta_phi (1 - phi)) the exchange that both mass balances share, so that the fluid
//     volume changes only by what crosses the sides (to the solver's tolerance);
//   - the compaction scale 1 / ((1 - A) S) that multiplies the exchange per unit effective
//     pressure (physics.hpp's `scale`), S the bulk viscosity's strain-rate factor (1 unless it
//     follows the shear viscosity's power law);
//   - the shear viscosity mu(phi, eps_II) = mu0 exp(-alpha (phi - phi0)) (eps_II / eps_ref)^(1/n-1)
//     within caps, relaxed in log space inside the iterations by the Stokes module's power-law
//     operators (models/staggered_stokes/power_law_ops.hpp), and its Maxwell combination with G dt.
// The advection is second-order upwind: central slopes (one-sided at a bounded side), clipped so
// that a cell's face values stay within [phi/2, (1 + phi)/2]; with the advective Courant number
// below 2/3 a cell then keeps at least a third of its porosity (advect_porosity sub-cycles the
// step to stay there), so A > 0. In smooth fields the clip never acts: second order.

#include "core/field.hpp"
#include "core/stencil.hpp"
#include "models/staggered_stokes/power_law_ops.hpp"

namespace staghorn::hydromech::two_phase {

using stencil::Off;

// The slope of phi along `axis` at cell (i, j, k): central, or one-sided in the first or last cell
// beside a bounded side (lo_side, hi_side: this block touches one along the axis; n: its cells).
struct PorositySlope {
  View phi, slope;
  int axis, n;
  int lo_side, hi_side;
  SH_HD void operator()(int i, int j, int k) const {
    const Off o = phi.offset(i, j, k);
    const Off s = axis == 0 ? 1 : (axis == 1 ? phi.sy : phi.sz);
    const int at = axis == 0 ? i : (axis == 1 ? j : k);
    const bool lo = lo_side && at == 0, hi = hi_side && at == n - 1;
    const real c = phi.p[o];
    real d = lo && hi ? real(0)
             : lo     ? phi.p[o + s] - c
             : hi     ? c - phi.p[o - s]
                      : real(0.5) * (phi.p[o + s] - phi.p[o - s]);
    const real bound = fmin(c, 1 - c);
    slope.p[o] = fmax(fmin(d, bound), -bound);
  }
};

// The upwind flux u phi_face across a face, from the cells below (lo) and above (hi) it.
SH_HD inline real upwind_flux(real u, real phi_lo, real slope_lo, real phi_hi, real slope_hi) {
  return u > 0 ? u * (phi_lo + real(0.5) * slope_lo) : u * (phi_hi - real(0.5) * slope_hi);
}

// out -= lambda (F_hi - F_lo) along `axis` at cell (i, j, k): v the solid velocity on the faces
// normal to the axis, lambda = dt / dx.
struct AdvectAlong {
  View phi, slope, v, out;
  real lambda;
  int axis;
  SH_HD void operator()(int i, int j, int k) const {
    const Off o = phi.offset(i, j, k);
    const Off s = axis == 0 ? 1 : (axis == 1 ? phi.sy : phi.sz);
    const real f_lo = upwind_flux(v.p[o], phi.p[o - s], slope.p[o - s], phi.p[o], slope.p[o]);
    const real f_hi = upwind_flux(v.p[o + s], phi.p[o], slope.p[o], phi.p[o + s], slope.p[o + s]);
    out.p[o] -= lambda * (f_hi - f_lo);
  }
};

// dt sum over axes of (|v_lo| + |v_hi|) / dx at a cell: the share of its porosity a step could
// move out at most (the advective Courant number of the bound above).
template <int Dim>
struct AdvectiveCourant {
  View v[3];
  real lambda[3];  // dt / dx per axis
  SH_HD real operator()(int i, int j, int k) const {
    const Off o = v[0].offset(i, j, k);
    real c = 0;
    for (int a = 0; a < Dim; ++a) {
      const Off s = a == 0 ? 1 : (a == 1 ? v[a].sy : v[a].sz);
      c += lambda[a] * (fabs(v[a].p[o]) + fabs(v[a].p[o + s]));
    }
    return c;
  }
};

// The compaction scale without the viscosity's factor: 1 / (1 - A) (two_phase), else 1.
struct CompactionScale {
  View phi_adv, scale;
  int two_phase;
  SH_HD void operator()(int i, int j, int k) const {
    const Off o = scale.offset(i, j, k);
    scale.p[o] = two_phase ? 1 / (1 - phi_adv.p[o]) : real(1);
  }
};

// The shear viscosity's law: mu0 exp(-alpha (phi - phi0)) for the porosity, a power law in the
// strain rate (n, eps_ref; n = 1: none) within the caps, relaxed by theta in log space; G: the
// Maxwell solid's shear modulus (0: viscous).
struct ShearLaw {
  real mu0 = 1, alpha = 0, phi0 = 1;
  real n = 1, eps_ref = 1;
  stokes::ViscosityUpdate update;
  real G = 0;
  int bulk_follows = 0;  // the bulk viscosity takes the strain-rate factor too (scale)

  SH_HD real porosity_part(real phi) const {
    return alpha == 0 ? mu0 : mu0 * exp(-alpha * (phi - phi0));
  }
  // The law's viscosity at porosity phi and strain-rate invariant eps_ii, capped.
  SH_HD real target(real phi, real eps_ii) const {
    return stokes::cap_viscosity(
        stokes::power_law_viscosity(porosity_part(phi), n, eps_ref, eps_ii, update), update);
  }
  // The viscosity of one step of a Maxwell solid, 1 / (1/mu + 1/(G dt)).
  SH_HD real visco_elastic(real mu, real dt) const {
    return G > 0 ? 1 / (1 / mu + 1 / (G * dt)) : mu;
  }
};

// What follows from a cell's creep viscosity mu_s: the iterations' viscosity
// mu = visco_elastic(mu_s) and the compaction scale 1 / ((1 - A) S) (two_phase; else 1 / S),
// S = mu_s / porosity_part where the bulk viscosity follows the power law (else 1).
SH_HD inline void derive(const ShearLaw& law, real mu_s, real phi, real phi_adv, real dt,
                         int two_phase, real& mu, real& scale) {
  mu = law.visco_elastic(mu_s, dt);
  const real S = law.bulk_follows ? mu_s / law.porosity_part(phi) : real(1);
  scale = 1 / ((two_phase ? 1 - phi_adv : real(1)) * S);
}

// One update of the creep viscosity mu_s at cell (i, j, k) from the iterate's porosity
// (exc + phi_ref) and strain rate: relaxed in log space, or (`unrelaxed`, a step's start) set to
// the law's value outright; kept where the law is undefined (a power law at rest without an upper
// cap). Then mu and the compaction scale (derive).
template <int Dim>
struct ShearViscosityUpdate {
  stokes::Kinematics<Dim> k;  // the velocities (physical strain rates: Params::deviatoric = 1)
  ShearLaw law;
  View exc, phi_adv, mu_s, scale;
  real phi_ref, dt;
  int unrelaxed, two_phase;
  SH_HD void operator()(int i, int j, int kk) const {
    const Off o = exc.offset(i, j, kk);
    const real phi = exc.p[o] + phi_ref;
    const real eps_ii = law.n == 1 ? real(0) : stokes::strain_rate_ii(k, o);
    const real eta = law.target(phi, eps_ii);
    real mu = mu_s.p[o];
    if (eta < real(INFINITY))
      mu = unrelaxed ? eta
                     : stokes::cap_viscosity(stokes::relax_viscosity(mu, eta, law.update.theta),
                                             law.update);
    mu_s.p[o] = mu;
    derive(law, mu, phi, phi_adv.p[o], dt, two_phase, k.m.mu.p[o], scale.p[o]);
  }
};

// mu and the compaction scale at cell (i, j, k) from the creep viscosity kept (a retry).
struct ShearViscosityDerived {
  ShearLaw law;
  View exc, phi_adv, mu_s, mu, scale;
  real phi_ref, dt;
  int two_phase;
  SH_HD void operator()(int i, int j, int k) const {
    const Off o = exc.offset(i, j, k);
    derive(law, mu_s.p[o], exc.p[o] + phi_ref, phi_adv.p[o], dt, two_phase, mu.p[o], scale.p[o]);
  }
};

// |target - mu_s| / mu_s at cell (i, j, k): how far the iterations' viscosity is from the law's
// for the current iterate (0 where the power law is undefined, as the update keeps mu_s there).
template <int Dim>
struct ShearViscosityMismatch {
  stokes::Kinematics<Dim> k;
  ShearLaw law;
  View exc, mu_s;
  real phi_ref;
  SH_HD real operator()(int i, int j, int kk) const {
    const Off o = exc.offset(i, j, kk);
    const real eps_ii = law.n == 1 ? real(0) : stokes::strain_rate_ii(k, o);
    const real eta = law.target(exc.p[o] + phi_ref, eps_ii), mu = mu_s.p[o];
    return eta < real(INFINITY) ? fabs(eta - mu) / mu : 0;
  }
};

}  // namespace staghorn::hydromech::two_phase
