#pragma once
// Power-law (non-Newtonian) viscosity of the staggered-Stokes module (docs/models/stokes.md,
// "Power-law viscosity"):
//   eta = min(max(eta0 (eps_II / eps_ref)^(1/n - 1), eta_min), eta_max),
//   eps_II = sqrt(eps_ij eps_ij / 2)  (deviatoric strain rate, at cell centres),
// updated inside the PT iterations with relaxation in log space (Räss et al. 2022; Duretz et al.):
//   mu <- mu^(1 - theta) eta^theta.
// eta0, n and eps_ref are cell fields, so that every material (phase) may set its own. The
// functions here are the one definition of each formula: every backend, kernel and test uses them.

#include "models/staggered_stokes/kernels.hpp"

namespace staghorn::stokes {

// Cell fields of the flow law: the reference viscosity eta0 (the Newtonian mu of the material),
// the stress exponent n (1: Newtonian) and the reference strain rate eps_ref.
struct FlowLaw {
  View eta0, n, eps_ref;
};

// Bounds on the viscosity and the log-space relaxation factor theta of the update.
struct ViscosityUpdate {
  real eta_min = 0;
  real eta_max = 0;  // <= 0: no upper bound
  real theta = 1;
};

// A power-law viscosity within the caps.
SH_HD inline real cap_viscosity(real eta, const ViscosityUpdate& u) {
  if (u.eta_max > 0) eta = fmin(eta, u.eta_max);
  return fmax(eta, u.eta_min);
}

// The power-law viscosity at strain-rate invariant eps_ii, within the caps. n = 1 returns eta0,
// uncapped (the caps bound the power law; a Newtonian cell does no pow). A zero eps_ii with n > 1
// and no upper cap gives +inf (the callers keep the current viscosity there: a cell at rest has no
// defined power-law viscosity).
SH_HD inline real power_law_viscosity(real eta0, real n, real eps_ref, real eps_ii,
                                      const ViscosityUpdate& u) {
  return n == 1 ? eta0 : cap_viscosity(eta0 * pow(eps_ii / eps_ref, 1 / n - 1), u);
}

// The second invariant of the deviatoric strain rate at the centre of cell o: the normal rates
// there, the shear rates of the cell's four edges in each plane averaged to the centre. In 2-D
// (plane strain) eps_zz = -div(v)/3 (deviatoric, with dv_z/dz = 0).
template <int Dim>
SH_HD real strain_rate_ii(const Kinematics<Dim>& k, Off o) {
  const Off sy = k.s.P.sy, sz = k.s.P.sz;
  const real exx = k.exx(o), eyy = k.eyy(o);
  const real ezz = Dim >= 3 ? k.ezz(o) : -k.isotropic(o);
  const real exy = real(0.25) * ((k.exy(o) + k.exy(o + 1)) + (k.exy(o + sy) + k.exy(o + 1 + sy)));
  real s = real(0.5) * (exx * exx + eyy * eyy + ezz * ezz) + exy * exy;
  if constexpr (Dim >= 3) {
    const real exz = real(0.25) * ((k.exz(o) + k.exz(o + 1)) + (k.exz(o + sz) + k.exz(o + 1 + sz)));
    const real eyz =
        real(0.25) * ((k.eyz(o) + k.eyz(o + sy)) + (k.eyz(o + sz) + k.eyz(o + sy + sz)));
    s += exz * exz + eyz * eyz;
  }
  return sqrt(s);
}

// The flow law at the cells of a velocity field: its viscosity at cell (i, j, k) for the current
// velocities of k, and the offset of the cell.
template <int Dim>
struct FlowLawAt {
  Kinematics<Dim> k;
  FlowLaw law;
  ViscosityUpdate u;
  SH_HD Off at(int i, int j, int kk) const { return k.s.P.offset(i, j, kk); }
  SH_HD real viscosity(Off o) const {
    return power_law_viscosity(law.eta0.p[o], law.n.p[o], law.eps_ref.p[o], strain_rate_ii(k, o),
                               u);
  }
};

// mu^(1 - theta) eta^theta, as mu (eta / mu)^theta: one pow.
SH_HD inline real relax_viscosity(real mu, real eta, real theta) {
  return theta == 1 ? eta : mu * pow(eta / mu, theta);
}

// One relaxed update of the cell viscosity k.m.mu, in place (a cell reads only its own mu). The
// relaxed value lies between mu and the capped eta, so it is capped too once mu is: capping it
// again puts a start outside the caps (eta0) inside them at the first update.
template <int Dim>
struct PowerLawUpdate : FlowLawAt<Dim> {
  SH_HD void operator()(int i, int j, int kk) const {
    const Off o = this->at(i, j, kk);
    if (this->law.n.p[o] == 1) return;  // Newtonian: mu stays eta0
    const real eta = this->viscosity(o), mu = this->k.m.mu.p[o];
    if (eta < real(INFINITY))
      this->k.m.mu.p[o] = cap_viscosity(relax_viscosity(mu, eta, this->u.theta), this->u);
  }
};

// |eta(v) - mu| / mu at cell (i, j, k): how far the viscosity the momentum residual uses is from
// the flow law's for the current velocities (0 where the flow law is undefined, as the update
// keeps mu there). The nonlinear equations are solved when this and the momentum and continuity
// residuals are all small.
template <int Dim>
struct ViscosityMismatch : FlowLawAt<Dim> {
  SH_HD real operator()(int i, int j, int kk) const {
    const Off o = this->at(i, j, kk);
    const real eta = this->viscosity(o), mu = this->k.m.mu.p[o];
    return eta < real(INFINITY) ? fabs(eta - mu) / mu : 0;
  }
};

}  // namespace staghorn::stokes
