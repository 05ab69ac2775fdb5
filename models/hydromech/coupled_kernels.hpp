#pragma once
// Kernels of the coupled hydro-mechanical variant (docs/models/hydromech-coupled.md):
// solid Stokes flow coupled to Darcy flow of the fluid, in over-pressures relative to the
// lithostatic state of porosity phi_ref:
//   total momentum:  div(tau) - grad(p) + (phi - phi_ref) B e_up = 0
//   solid mass:      div(v_s) + E(Pe) = 0
//   fluid mass:      div(q) - E(Pe) = 0,          q = -k(phi) (grad(pf) - body e_up)
//   porosity:        phi = phi(A, Pe),            E = (A - phi) / dt,   Pe = p - pf
//   shear (Maxwell): tau = 2 eta_ve (eps_dev + tau_old / (2 G dt)),  1/eta_ve = 1/mu + 1/(G dt)
// A is the porosity at the step's start carried by the solid (two_phase.hpp; phi_old in the
// small-porosity limit), `scale` per cell 1 / (1 - A) (1 in the limit) times the bulk viscosity's
// strain-rate factor, body = (1 - phi_ref) B (B in the limit), mu the cell's shear viscosity.
// The building blocks: Material and darcy_flux (physics.hpp, shared with the reduced variant),
// the Stokes strain rates, stress relaxation and momentum residuals
// (models/staggered_stokes/kernels.hpp), the damped PT update (solvers/pt_update.hpp). One fused
// kernel updates, at cell o, p, pf and the normal stresses, the shear stresses of its low edges and
// the solid velocities of its low faces (recomputing the few new pressures and stresses of its
// neighbours those faces need).

#include <iterator>

#include "core/device_minmax.hpp"
#include "core/field.hpp"
#include "core/stencil.hpp"
#include "models/hydromech/physics.hpp"
#include "models/staggered_stokes/kernels.hpp"
#include "models/staggered_stokes/tiled_shape.hpp"
#include "solvers/pt_update.hpp"

namespace staghorn::hydromech::coupled {

using stencil::Off;

// Launch shapes the tiled CUDA kernel (coupled_tiled.hpp) is compiled for (stokes::tiled::Shape,
// models/staggered_stokes/tiled_shape.hpp). Shape 0 is the default: 34 x 15
// threads, one block per SM, a 32 x 13 tile whose rows store whole 32-byte sectors and which
// loads 1.23 columns per tile cell (32 x 8 threads: 1.42, rows starting mid-sector). Benchmarks
// compare the others (docs/journal/performance.md), the default's threads with marches of 8 and
// 32 planes among them (the Stokes kernel's best march length differs between cards).
using TiledShape = stokes::tiled::Shape;
constexpr TiledShape kTiledShapes[] = {{34, 15, 1, 16}, {32, 8, 2, 16}, {32, 8, 1, 16},
                                       {32, 16, 1, 16}, {64, 8, 1, 16}, {32, 8, 2, 32},
                                       {32, 8, 2, 8},   {34, 15, 1, 8},  {34, 15, 1, 32}};
constexpr int kTiledShapeCount = static_cast<int>(std::size(kTiledShapes));

// Constants of one PT iteration.
struct Constants {
  Material mat;
  stokes::Params sp;  // spacing, Stokes pseudo-steps, buoyancy B along the up axis, walls
  real dt;
  real phi_ref;   // porosity of the lithostatic reference state
  real body[3];   // B along the up axis (the Darcy flux's driving term)
  real sum_rdx2;  // sum over active axes of 1/dx^2
  real slowest;   // sum over active axes of (pi/L)^2: the domain's slowest Darcy mode per unit k
  real elastic;   // 1 / (2 G dt); 0 for a viscous solid
  float cfl;
};

// Manufactured-solution sources (verification: CoupledHydroMech::set_sources), added to the
// residuals of momentum (on the faces) and of solid and fluid mass (at the cells). Only the
// kernels instantiated with Sourced = true read them: a normal run loads nothing more and computes
// the same bits.
struct Sources {
  View fx, fy, fz;  // momentum along x, y, z
  View solid, fluid;
};

// The fields besides the Stokes state (v, p, tau in stokes::State; p is the total over-pressure).
struct Extra {
  View Pf;       // fluid over-pressure
  View dPfdtau;  // its pseudo-velocity (damped PT)
  View phi_old;  // porosity at the start of the step, carried by the solid (A)
  View exc;      // phi(phi_old, Pe) - phi_ref of the iterate (halo included): the buoyancy
  View scale;    // the compaction scale of each cell (physics.hpp's `scale`)
  Sources src;   // read only by Sourced kernels
};

// R plus the source f at o where the kernel carries sources; R itself (no load, no add) otherwise.
template <bool Sourced>
SH_HD inline real plus_source(real R, const View& f, Off o) {
  if constexpr (Sourced)
    return R + f.p[o];
  else
    return R;
}

// The momentum sources as a force for stokes::update_solid and stokes::momentum.
template <bool Sourced>
struct MomentumSource {
  Sources src;
  SH_HD real operator()(int axis, real R, Off o) const {
    return plus_source<Sourced>(R, axis == 0 ? src.fx : (axis == 1 ? src.fy : src.fz), o);
  }
};

// The pointwise operators, on values: the generic kernels below gather them by offset, the tiled
// one (coupled_tiled.hpp) from registers and shared memory; both compute the same expressions.

// The compaction of a cell, from its total and fluid pressures, its porosity at the start of the
// step and the iterate's porosity phi: the step's compaction rate C and its derivative
// C' = dC/dPe. Both mass balances use it; a kernel computes it once per cell.
struct Compaction {
  real rate, coefficient;
};
// With the effective pressure Pe and its switch (weakening_of(Pe)) at hand.
SH_HD inline Compaction compaction_with(const Constants& k, real Pe, const Weakening& wk,
                                        real phi_old, real phi, real scale) {
  return {k.mat.compaction_rate(phi_old, Pe, wk.w, k.dt, scale),
          k.mat.compaction_coefficient(phi, Pe, wk.slope, scale)};
}
SH_HD inline Compaction compaction_of(const Constants& k, real P, real Pf, real phi_old, real phi,
                                      real scale) {
  const real Pe = P - Pf;
  return compaction_with(k, Pe, k.mat.weakening_of(Pe), phi_old, phi, scale);
}

// Solid mass: p <- p + K~dtau / (1 + K~dtau C') (-div v - C + source). The compaction term is
// taken implicitly in pseudo-time: in decompaction (C' large) it would otherwise limit K~dtau.
template <bool Sourced>
SH_HD inline real solid_pressure(const Constants& k, real P, const Compaction& c, real mu_max,
                                 real div, real source) {
  const real kdt = k.sp.r * k.sp.gdt * mu_max;
  real R = -div - c.rate;
  if constexpr (Sourced) R += source;
  return P + divide(kdt, 1 + kdt * c.coefficient) * R;
}

// Pressures and stresses of the next iterate, point by point (cells and edges), from the current
// one: the Stokes stress updates with the old (Maxwell) stresses; p from the solid mass balance.
template <int Dim, bool Sourced = false>
struct Pseudo : stokes::Pseudo<Dim, stokes::OldStress> {
  using K = stokes::Kinematics<Dim>;
  Constants k;
  Extra x;

  SH_HD real Pe(Off o) const { return K::s.P.p[o] - x.Pf.p[o]; }
  SH_HD real phi(Off o) const { return x.exc.p[o] + k.phi_ref; }

  SH_HD Compaction compaction(Off o) const {
    return compaction_of(k, K::s.P.p[o], x.Pf.p[o], x.phi_old.p[o], phi(o), x.scale.p[o]);
  }
  SH_HD real P_new(Off o) const {
    return solid_pressure<Sourced>(k, K::s.P.p[o], compaction(o), K::m.mu_max.p[o], K::div(o),
                                   Sourced ? x.src.solid.p[o] : real(0));
  }
};

// Fluid mass at cell o: the residual C - div q and what its pseudo-step needs (the reduced
// variant's bound on the Jacobian: compaction r = C', Darcy 4 k_max sum(1/dx^2), and k's
// dependence on Pe through phi).
struct FluidEval {
  real R, r, k_c, k_max, dk, phi;
};

// The permeability of the face between a cell (k_c) and its neighbour (k_n): their mean.
SH_HD inline real face_permeability(real k_c, real k_n) { return real(0.5) * (k_c + k_n); }

// From values: the fluid pressure pf and permeability kp at the cell (index 0) and at its low and
// high neighbours along each axis (1 + 2a and 2 + 2a), the cell's porosity phi and compaction.
template <int Dim, bool Sourced = false>
SH_HD inline FluidEval fluid_of(const Constants& k, const real pf[7], const real kp[7], real phi,
                                const Compaction& c, real source) {
  FluidEval e{};
  e.phi = phi;
  e.k_c = kp[0];
  const real rdx[3] = {k.sp.rdx, k.sp.rdy, k.sp.rdz};
  for (int a = 0; a < Dim; ++a) {
    const real lo = pf[1 + 2 * a], hi = pf[2 + 2 * a];
    const real k_lo = face_permeability(e.k_c, kp[1 + 2 * a]);
    const real k_hi = face_permeability(e.k_c, kp[2 + 2 * a]);
    // q = -k (grad pf - B e_up) is the reduced variant's flux of -pf.
    const real q_lo = darcy_flux(k_lo, -lo, -pf[0], rdx[a], k.body[a]);
    const real q_hi = darcy_flux(k_hi, -pf[0], -hi, rdx[a], k.body[a]);
    e.R -= (q_hi - q_lo) * rdx[a];
    e.k_max = cuda_fmax(e.k_max, cuda_fmax(k_lo, k_hi));  // cuda_fmax: core/device_minmax.hpp
    e.dk += (fabs((pf[0] - lo) * rdx[a] - k.body[a]) + fabs((hi - pf[0]) * rdx[a] - k.body[a])) *
            rdx[a];
  }
  e.R += c.rate;
  if constexpr (Sourced) e.R += source;
  e.r = c.coefficient;
  return e;
}

template <int Dim, bool Sourced = false>
SH_HD inline FluidEval fluid(const Constants& k, const View& P, const Extra& x, Off o) {
  const Off s[3] = {1, x.Pf.sy, x.Pf.sz};
  real pf[7] = {x.Pf.p[o]}, kp[7];
  const real phi = x.exc.p[o] + k.phi_ref;
  kp[0] = k.mat.permeability(phi);
  for (int a = 0; a < Dim; ++a) {
    pf[1 + 2 * a] = x.Pf.p[o - s[a]];
    pf[2 + 2 * a] = x.Pf.p[o + s[a]];
    kp[1 + 2 * a] = k.mat.permeability(x.exc.p[o - s[a]] + k.phi_ref);
    kp[2 + 2 * a] = k.mat.permeability(x.exc.p[o + s[a]] + k.phi_ref);
  }
  return fluid_of<Dim, Sourced>(
      k, pf, kp, phi, compaction_of(k, P.p[o], pf[0], x.phi_old.p[o], phi, x.scale.p[o]),
      Sourced ? x.src.fluid.p[o] : real(0));
}

// The solid pressure's share of the exchange's relaxation in one iteration: theta = K~dtau C' /
// (1 + K~dtau C') (solid_pressure's implicit step, from the cell's mu_max), in [0, 1).
SH_HD inline float solid_exchange_share(const Constants& k, real C, real mu_max) {
  const float g = static_cast<float>(k.sp.r * k.sp.gdt * mu_max * C);
  return g / (1 + g);
}

// How much the solid's shear resists the compaction the fluid's exchange asks for: the exchange
// coefficient C' = 1 / eta_phi of a cell acts on Pe like 1 / (eta_phi + c mu) once the solid
// responds (1-D: c = 4/3, the coupled wave's bulk viscosity eta_phi + 4/3 eta_s). c sets the
// slowest mode the fluid's damping is tuned for, not the result; 4 converged fastest over
// 0, 1/2, 4/3, 4 and 16 on a rising blob and a reservoir (docs/models/hydromech-coupled.md).
constexpr float kShearCompaction = 4;

// The reduced variant's optimal local pseudo-step for the fluid pressure, its damping tuned for
// the slowest mode of the coupled exchange (kShearCompaction) and its step shortened where the
// solid pressure relaxes the same exchange in the same iteration. Both move Pe = p - pf from the
// same old values (p by theta of the way, pf by dtau C'), so the exchange mode is stable only
// while theta + dtau C' < 2: the fluid's step alone may reach 2 - 2d (reaction-dominated cells,
// strong decompaction weakening), and with theta near 1 the pair overshoots and the iterations
// stall. dtau / (1 + theta) keeps theta + dtau C' below 2 for any theta and changes nothing where
// the solid barely relaxes the exchange (theta ~ 0, compaction).
SH_HD inline pt::Step fluid_step(const Constants& k, const FluidEval& e, real mu, real mu_max) {
  const real dkdp = e.phi > 0 ? divide(k.mat.n * e.k_c, e.phi) * k.dt * e.r : real(0);
  const real stiff = 4 * e.k_max * k.sum_rdx2 + real(0.5) * dkdp * e.dk;
  const real r = cuda_fmax(e.r, real(1e-20) * stiff + real(1e-300));
  const real t = divide(1, r);
  // The slowest mode (1 + b) / t: the exchange as the solid lets it act, 1 / (1 + c mu C') of
  // C' = 1 / t, plus the domain's Darcy mode at the cell's k, but at most at the reference k0:
  // inside a front hundreds of times more permeable than its surroundings that mode is the
  // surroundings' (the cell's own k left those steps underdamped), and without it the steps of
  // strongly weakened cells (R = 1000, C' large, b near -1) are left undamped and diverge.
  const float resisted = static_cast<float>(e.r * mu) * kShearCompaction;
  const real k_mode = cuda_fmin(e.k_c, k.mat.k0);
  const float b = static_cast<float>(k_mode * k.slowest * t) + 1 / (1 + resisted) - 1;
  pt::Step s = pt::optimal_step(stiff * t / 4, b, t, k.cfl);
  s.dtau *= static_cast<real>(1 / (1 + solid_exchange_share(k, e.r, mu_max)));
  return s;
}

// The buoyancy's "density" in stokes::momentum_*: g[up] = B times the excess porosity.
template <int Dim, bool Sourced>
SH_HD inline stokes::Material buoyant(const Pseudo<Dim, Sourced>& p) {
  return {p.m.mu, p.m.mu_max, p.x.exc};
}

// One fused PT iteration at cell (i, j, k): the solid's (stokes::update_solid, with the porosity
// excess as buoyancy and the momentum sources) and the fluid pressure's.
template <int Dim, bool Sourced = false>
struct Iteration {
  Pseudo<Dim, Sourced> ps;
  stokes::State out;
  View Pf_new;

  SH_HD void operator()(int i, int j, int k) const {
    stokes::update_solid<Dim>(ps, buoyant(ps), out, i, j, k, MomentumSource<Sourced>{ps.x.src});
    const Off o = ps.s.P.offset(i, j, k);
    const FluidEval f = fluid<Dim, Sourced>(ps.k, ps.s.P, ps.x, o);
    Pf_new.p[o] = pt::advance(ps.x.Pf.p[o], f.R, ps.x.dPfdtau.p[o],
                              fluid_step(ps.k, f, ps.m.mu.p[o], ps.m.mu_max.p[o]));
  }
};

// The residual of one equation at cell (i, j, k) (its low face for momentum; walls excluded),
// times `weight`: 0, 1, 2 momentum x, y, z; 3 solid mass; 4 fluid mass. `absolute`: |R|.
template <int Dim, bool Sourced = false>
struct Residual {
  Pseudo<Dim, Sourced> ps;
  int equation;
  real weight;
  bool absolute;
  SH_HD real operator()(int i, int j, int kk) const {
    const Off o = ps.s.P.offset(i, j, kk);
    real R = 0;
    if (equation < 3) {
      const stokes::PhysicalStress<Dim, stokes::OldStress> st{ps, ps.old};
      R = stokes::momentum<Dim>(st, ps.c, buoyant(ps), equation, i, j, kk, o, ps.s.P.sy, ps.s.P.sz,
                                MomentumSource<Sourced>{ps.x.src});
    } else if (equation == 3) {
      R = plus_source<Sourced>(-ps.div(o) - ps.compaction(o).rate, ps.x.src.solid, o);
    } else {
      R = fluid<Dim, Sourced>(ps.k, ps.s.P, ps.x, o).R;
    }
    R *= weight;
    return absolute ? fabs(R) : R;
  }
};

// The Darcy flux out of the block through its bounded sides (lo, hi: this block touches one along
// the axis) at cell (i, j, k), times the faces' areas: the fluid volume leaving per unit time
// (the face fluxes of fluid_of, from the ghosts the walls and the porosity pass set), `sign` 1;
// with sign -1 the volume entering (each face's flux counts where it has that sign).
template <int Dim>
struct SideOutflow {
  Pseudo<Dim> ps;
  int lo[3], hi[3], n[3];
  real area[3];
  real sign;
  SH_HD real part(real leaving) const { return fmax(sign * leaving, real(0)); }
  SH_HD real operator()(int i, int j, int kk) const {
    const Constants& k = ps.k;
    const Extra& x = ps.x;
    const Off o = x.Pf.offset(i, j, kk), s[3] = {1, x.Pf.sy, x.Pf.sz};
    const int idx[3] = {i, j, kk};
    const real rdx[3] = {k.sp.rdx, k.sp.rdy, k.sp.rdz};
    const real k_c = k.mat.permeability(ps.phi(o)), pf = x.Pf.p[o];
    real out = 0;
    for (int a = 0; a < Dim; ++a) {
      if (lo[a] && idx[a] == 0) {
        const real k_f = face_permeability(k_c, k.mat.permeability(ps.phi(o - s[a])));
        out += part(-darcy_flux(k_f, -x.Pf.p[o - s[a]], -pf, rdx[a], k.body[a]) * area[a]);
      }
      if (hi[a] && idx[a] == n[a] - 1) {
        const real k_f = face_permeability(k_c, k.mat.permeability(ps.phi(o + s[a])));
        out += part(darcy_flux(k_f, -pf, -x.Pf.p[o + s[a]], rdx[a], k.body[a]) * area[a]);
      }
    }
    return out;
  }
};

// exc = phi(phi_old, p - pf) - phi_ref (the iterate's porosity), or with `to_phi` phi itself.
struct Porosity {
  Material mat;
  real dt, phi_ref;
  View out, phi_old, P, Pf, scale;
  bool to_phi;
  SH_HD void operator()(int i, int j, int k) const {
    const Off o = out.offset(i, j, k);
    const real Pe = P.p[o] - Pf.p[o];
    const real phi = mat.porosity(phi_old.p[o], Pe, mat.weakening_factor(Pe), dt, scale.p[o]);
    out.p[o] = to_phi ? phi : phi - phi_ref;
  }
};

}  // namespace staghorn::hydromech::coupled
