#pragma once
// Incompressible Stokes flow on the staggered grid (docs/models/stokes.md):
//   div(tau) - grad(P) + rho g = 0,   div(v) = 0,   tau = 2 mu (eps - div(v)/3 I),
// P at cell centres, v on faces, tau_xx.. at centres, tau_xy.. on edges, mu and rho at centres.
// Solved by accelerated pseudo-transient iterations (Räss et al. 2022, GMD, Stokes section):
//   P   <- P - K~dtau div(v)
//   tau <- (tau + 2 G~dtau eps) / (1 + G~dtau / mu)      (eps: eps_dev, or the whole rate)
//   v   <- v + dtau/rho~ (div(tau) - grad(P) + rho g)
// with G~dtau = gdt mu_max, K~dtau = r G~dtau and dtau/rho~ = vdt / mu_max from the local maximum
// viscosity. One fused kernel does a whole iteration: each cell updates its pressure, normal
// stresses, the shear stresses of its low edges and the velocities of its low faces, recomputing
// the few new stresses of its neighbours that its faces need.

#include "core/field.hpp"
#include "core/stencil.hpp"

namespace staghorn::stokes {

using stencil::Off;

// Constants of one PT iteration.
struct Params {
  real rdx = 1, rdy = 1, rdz = 1;  // 1 / spacing
  real gdt = 0;                    // G~dtau / mu_max = Re Vp dtau / (L (r + 2))
  real r = 0;                      // K~ / G~
  real vdt = 0;                    // dtau / rho~ * mu_max = Vp dtau L / Re
  real g[3] = {0, 0, 0};           // gravity
  // Switches as int, not bool: GCC unswitches the CPU's row loops on them and vectorises each
  // version, which it does not for a loop-invariant bool.
  int harmonic = 0;  // harmonic (else arithmetic) viscosity average on edges
  // 1: the stresses relax towards the deviatoric strain rate (compressible flow, whose div(v)
  // stays). 0: towards the whole rate, for incompressible flow: the iterations' isotropic stress
  // then carries 2 G~ of the pseudo-compressional wave's modulus K~ + 2 G~, which the pseudo-steps
  // assume (docs/models/stokes.md, "Accelerated pseudo-transient iterations"); it vanishes with
  // div(v), so the converged solution is the same.
  int deviatoric = 1;
  // The least viscosity a pseudo-step is taken from (docs/models/stokes.md, "Pseudo-step
  // viscosity"): 0 lets each point use its own neighbourhood's largest.
  real mu_floor = 0;
  int wall_lo[3] = {0, 0, 0};  // face 0 of this block is a wall along the axis
};

// Fields of one iteration (old values; new ones go to a second set).
struct State {
  View Vx, Vy, Vz, P, Txx, Tyy, Tzz, Txy, Txz, Tyz;
};
// Material: cell-centred mu, its maximum over the 3^d neighbourhood, rho.
struct Material {
  View mu, mu_max, rho;
};

// Strain rates and viscosities of a velocity field, point by point.
template <int Dim>
struct Kinematics {
  Params c;
  State s;
  Material m;

  SH_HD real div(Off o) const {
    using namespace stencil;
    real d = d_xa(s.Vx, o) * c.rdx;
    if constexpr (Dim >= 2) d += d_ya(s.Vy, o) * c.rdy;
    if constexpr (Dim >= 3) d += d_za(s.Vz, o) * c.rdz;
    return d;
  }
  // Normal strain rates at cell o: deviatoric, or whole (Params::deviatoric).
  SH_HD real mean_normal_rate(Off o) const { return div(o) / 3; }
  SH_HD real isotropic(Off o) const { return c.deviatoric ? mean_normal_rate(o) : real(0); }
  SH_HD real exx(Off o) const { return stencil::d_xa(s.Vx, o) * c.rdx - isotropic(o); }
  SH_HD real eyy(Off o) const { return stencil::d_ya(s.Vy, o) * c.rdy - isotropic(o); }
  SH_HD real ezz(Off o) const { return stencil::d_za(s.Vz, o) * c.rdz - isotropic(o); }
  // Shear strain rates on the edges at the low corner of cell o.
  SH_HD real exy(Off o) const {
    using namespace stencil;
    return real(0.5) * (d_yb(s.Vx, o) * c.rdy + d_xb(s.Vy, o) * c.rdx);
  }
  SH_HD real exz(Off o) const {
    using namespace stencil;
    return real(0.5) * (d_zb(s.Vx, o) * c.rdz + d_xb(s.Vz, o) * c.rdx);
  }
  SH_HD real eyz(Off o) const {
    using namespace stencil;
    return real(0.5) * (d_zb(s.Vy, o) * c.rdz + d_yb(s.Vz, o) * c.rdy);
  }
  // Viscosity on those edges.
  SH_HD real mu_xy(Off o) const {
    return c.harmonic ? stencil::hav_xyb(m.mu, o) : stencil::av_xyb(m.mu, o);
  }
  SH_HD real mu_xz(Off o) const {
    return c.harmonic ? stencil::hav_xzb(m.mu, o) : stencil::av_xzb(m.mu, o);
  }
  SH_HD real mu_yz(Off o) const {
    return c.harmonic ? stencil::hav_yzb(m.mu, o) : stencil::av_yzb(m.mu, o);
  }
};

// The stresses at the start of the step of a visco-elastic (Maxwell) solid: tau_old / (2 G dt)
// enters every stress update as an extra strain rate. A viscous solid has none (NoOldStress), and
// its kernels load nothing for them.
struct NoOldStress {
  static constexpr bool kPresent = false;
  SH_HD real strain(real e, int, Off) const { return e; }
};
SH_HD inline real with_old_stress(real e, real elastic, real tau_old) {
  return e + elastic * tau_old;
}
struct OldStress {
  static constexpr bool kPresent = true;
  View tau[6];   // xx, yy, zz, xy, xz, yz
  real elastic;  // 1 / (2 G dt)
  SH_HD real strain(real e, int component, Off o) const {
    return with_old_stress(e, elastic, tau[component].p[o]);
  }
};

// The one stress update: tau <- (tau + 2 G~dtau e) / (1 + G~dtau / mu), a relaxation towards
// 2 mu e, where e is the strain rate plus the old stress's term (OldStress::strain).
SH_HD inline real relax(real tau, real gdt, real mu, real e) {
  return (tau + 2 * gdt * e) / (1 + gdt / mu);
}

// The pseudo-transient updates of P and tau at a point, from the old state. G~dtau uses the
// largest viscosity the point's stencil can meet: mu_max (3^d neighbourhood) at cells, the four
// cells around an edge on edges. Every such value is at most the mu_max of the faces whose
// residual it enters (their pseudo-step dtau/rho~ divides by that): the wave speed of the
// iterations stays under the CFL limit across any viscosity jump. Old: the old stresses of a
// visco-elastic solid (hydro-mechanics), or none (Stokes).
template <int Dim, class Old = NoOldStress>
struct Pseudo : Kinematics<Dim> {
  using K = Kinematics<Dim>;
  Old old;
  SH_HD real gdt_cell(Off o) const { return K::c.gdt * K::m.mu_max.p[o]; }
  SH_HD real P_new(Off o) const { return K::s.P.p[o] - K::c.r * gdt_cell(o) * K::div(o); }
  SH_HD real Txx_new(Off o) const {
    return relax(K::s.Txx.p[o], gdt_cell(o), K::m.mu.p[o], old.strain(K::exx(o), 0, o));
  }
  SH_HD real Tyy_new(Off o) const {
    return relax(K::s.Tyy.p[o], gdt_cell(o), K::m.mu.p[o], old.strain(K::eyy(o), 1, o));
  }
  SH_HD real Tzz_new(Off o) const {
    return relax(K::s.Tzz.p[o], gdt_cell(o), K::m.mu.p[o], old.strain(K::ezz(o), 2, o));
  }
  SH_HD real Txy_new(Off o) const {
    const real g = K::c.gdt * fmax(stencil::max_xyb(K::m.mu, o), K::c.mu_floor);
    return relax(K::s.Txy.p[o], g, K::mu_xy(o), old.strain(K::exy(o), 3, o));
  }
  SH_HD real Txz_new(Off o) const {
    const real g = K::c.gdt * fmax(stencil::max_xzb(K::m.mu, o), K::c.mu_floor);
    return relax(K::s.Txz.p[o], g, K::mu_xz(o), old.strain(K::exz(o), 4, o));
  }
  SH_HD real Tyz_new(Off o) const {
    const real g = K::c.gdt * fmax(stencil::max_yzb(K::m.mu, o), K::c.mu_floor);
    return relax(K::s.Tyz.p[o], g, K::mu_yz(o), old.strain(K::eyz(o), 5, o));
  }
  // Velocity pseudo-step on the face between cells o - back and o.
  SH_HD real vdt_face(Off o, Off back) const {
    return K::c.vdt / fmax(K::m.mu_max.p[o], K::m.mu_max.p[o - back]);
  }
};

// Momentum residual on the low x, y, z face of a cell:
//   R_x = d_xb(tau_xx - P)/dx + d_ya(tau_xy)/dy + d_za(tau_xz)/dz + rho g_x, ...
// from the values around the face, asked for where the sum uses each: at(term, high) with high 0
// below and 1 above the face along the term's own axis. The generic kernel computes each new
// stress there (evaluating all of them first costs registers: 7.5% of its speed at 128 threads),
// the CPU march (models/stokes/march.cpp) reads them from its rows, the tiled GPU kernels from
// shared memory; the same arithmetic in the same order for all.
enum FaceTerm {
  kNormal,   // total normal stress along the face's axis, in the cells below and above
  kShear1,   // shear stress on the edges beside the face along the first other axis (x, x, x)
  kShear2,   // ... and along the second (z, z, y) for the x, y, z faces
  kDensity,  // the buoyancy's density in the cells below and above
};
template <int Dim, class At>
SH_HD real momentum_x_of(const Params& c, const At& at) {
  real R = (at(kNormal, 1) - at(kNormal, 0)) * c.rdx +
           c.g[0] * (real(0.5) * (at(kDensity, 0) + at(kDensity, 1)));
  if constexpr (Dim >= 2) R += (at(kShear1, 1) - at(kShear1, 0)) * c.rdy;
  if constexpr (Dim >= 3) R += (at(kShear2, 1) - at(kShear2, 0)) * c.rdz;
  return R;
}
template <int Dim, class At>
SH_HD real momentum_y_of(const Params& c, const At& at) {
  real R = (at(kNormal, 1) - at(kNormal, 0)) * c.rdy + (at(kShear1, 1) - at(kShear1, 0)) * c.rdx +
           c.g[1] * (real(0.5) * (at(kDensity, 0) + at(kDensity, 1)));
  if constexpr (Dim >= 3) R += (at(kShear2, 1) - at(kShear2, 0)) * c.rdz;
  return R;
}
template <class At>
SH_HD real momentum_z_of(const Params& c, const At& at) {
  return (at(kNormal, 1) - at(kNormal, 0)) * c.rdz + (at(kShear1, 1) - at(kShear1, 0)) * c.rdx +
         (at(kShear2, 1) - at(kShear2, 0)) * c.rdy +
         c.g[2] * (real(0.5) * (at(kDensity, 0) + at(kDensity, 1)));
}

// The same on the faces at the low side of cell o, from stresses given by S (the pseudo-transient
// ones in an iteration, the physical ones for the norm).
template <int Dim, class S>
SH_HD real momentum_x(const S& s, const Params& c, const Material& m, Off o, Off sy, Off sz) {
  return momentum_x_of<Dim>(c, [&](int term, int high) {
    switch (term) {
      case kNormal:
        return s.sxx(o - 1 + high);
      case kShear1:
        return s.txy(o + high * sy);
      case kShear2:
        return s.txz(o + high * sz);
      default:
        return m.rho.p[o - 1 + high];
    }
  });
}
template <int Dim, class S>
SH_HD real momentum_y(const S& s, const Params& c, const Material& m, Off o, Off sy, Off sz) {
  return momentum_y_of<Dim>(c, [&](int term, int high) {
    switch (term) {
      case kNormal:
        return s.syy(o - sy + high * sy);
      case kShear1:
        return s.txy(o + high);
      case kShear2:
        return s.tyz(o + high * sz);
      default:
        return m.rho.p[o - m.rho.sy + high * m.rho.sy];
    }
  });
}
template <int Dim, class S>
SH_HD real momentum_z(const S& s, const Params& c, const Material& m, Off o, Off sy, Off sz) {
  return momentum_z_of(c, [&](int term, int high) {
    switch (term) {
      case kNormal:
        return s.szz(o - sz + high * sz);
      case kShear1:
        return s.txz(o + high);
      case kShear2:
        return s.tyz(o + high * sy);
      default:
        return m.rho.p[o - m.rho.sz + high * m.rho.sz];
    }
  });
}

// Total stresses after this iteration's P and tau updates, from the pseudo-transient updates Ps
// (Stokes' own, or a model's that builds on them).
template <class Ps>
struct PseudoStress {
  Ps p;
  SH_HD real sxx(Off o) const { return p.Txx_new(o) - p.P_new(o); }
  SH_HD real syy(Off o) const { return p.Tyy_new(o) - p.P_new(o); }
  SH_HD real szz(Off o) const { return p.Tzz_new(o) - p.P_new(o); }
  SH_HD real txy(Off o) const { return p.Txy_new(o); }
  SH_HD real txz(Off o) const { return p.Txz_new(o); }
  SH_HD real tyz(Off o) const { return p.Tyz_new(o); }
};

// Physical stresses of the current v and P: tau = 2 mu (eps_dev + the old stress's term).
template <int Dim, class Old = NoOldStress>
struct PhysicalStress {
  Kinematics<Dim> k;
  Old old;
  SH_HD real tau(real mu, real e, int component, Off o) const {
    return 2 * mu * old.strain(e, component, o);
  }
  SH_HD real sxx(Off o) const { return tau(k.m.mu.p[o], k.exx(o), 0, o) - k.s.P.p[o]; }
  SH_HD real syy(Off o) const { return tau(k.m.mu.p[o], k.eyy(o), 1, o) - k.s.P.p[o]; }
  SH_HD real szz(Off o) const { return tau(k.m.mu.p[o], k.ezz(o), 2, o) - k.s.P.p[o]; }
  SH_HD real txy(Off o) const { return tau(k.mu_xy(o), k.exy(o), 3, o); }
  SH_HD real txz(Off o) const { return tau(k.mu_xz(o), k.exz(o), 4, o); }
  SH_HD real tyz(Off o) const { return tau(k.mu_yz(o), k.eyz(o), 5, o); }
};

// No momentum source: the residual as it is.
struct NoForce {
  SH_HD real operator()(int /*axis*/, real R, Off /*o*/) const { return R; }
};

// The momentum residual along `axis` on the low face of cell (i, j, k) from the stresses S, plus
// the force F's source; 0 on a wall face (its velocity is not an unknown).
template <int Dim, class S, class F = NoForce>
SH_HD real momentum(const S& st, const Params& c, const Material& m, int axis, int i, int j, int k,
                    Off o, Off sy, Off sz, const F& force = {}) {
  switch (axis) {
    case 0:
      return i == 0 && c.wall_lo[0] ? 0 : force(0, momentum_x<Dim>(st, c, m, o, sy, sz), o);
    case 1:
      return j == 0 && c.wall_lo[1] ? 0 : force(1, momentum_y<Dim>(st, c, m, o, sy, sz), o);
    default:
      return k == 0 && c.wall_lo[2] ? 0 : force(2, momentum_z<Dim>(st, c, m, o, sy, sz), o);
  }
}

// The solid part of one fused PT iteration at cell (i, j, k): P, the normal stresses, the shear
// stresses of its low edges and the velocities of its low faces (recomputing the few new stresses
// of its neighbours those faces need). Faces on a wall keep their values. Ps: the pseudo-transient
// updates; m: viscosities and the buoyancy's density; force: a momentum source.
template <int Dim, class Ps, class F = NoForce>
SH_HD void update_solid(const Ps& ps, const Material& m, const State& out, int i, int j, int k,
                        const F& force = {}) {
  const Params& c = ps.c;
  const State& s = ps.s;
  const Off o = s.P.offset(i, j, k), sy = s.P.sy, sz = s.P.sz;
  out.P.p[o] = ps.P_new(o);
  out.Txx.p[o] = ps.Txx_new(o);
  if constexpr (Dim >= 2) {
    out.Tyy.p[o] = ps.Tyy_new(o);
    out.Txy.p[o] = ps.Txy_new(o);
  }
  if constexpr (Dim >= 3) {
    out.Tzz.p[o] = ps.Tzz_new(o);
    out.Txz.p[o] = ps.Txz_new(o);
    out.Tyz.p[o] = ps.Tyz_new(o);
  }
  const PseudoStress<Ps> st{ps};
  const bool wx = i == 0 && c.wall_lo[0], wy = j == 0 && c.wall_lo[1], wz = k == 0 && c.wall_lo[2];
  // The momentum residual evaluated only off the walls.
  out.Vx.p[o] =
      s.Vx.p[o] + (wx ? 0 : ps.vdt_face(o, 1) * force(0, momentum_x<Dim>(st, c, m, o, sy, sz), o));
  if constexpr (Dim >= 2)
    out.Vy.p[o] = s.Vy.p[o] +
                  (wy ? 0 : ps.vdt_face(o, sy) * force(1, momentum_y<Dim>(st, c, m, o, sy, sz), o));
  if constexpr (Dim >= 3)
    out.Vz.p[o] = s.Vz.p[o] +
                  (wz ? 0 : ps.vdt_face(o, sz) * force(2, momentum_z<Dim>(st, c, m, o, sy, sz), o));
}

// One fused PT iteration of Stokes flow (the generic, reference kernel) at cell (i, j, k).
// Threads: CUDA block size (the same arithmetic for any; benchmarks compare them).
template <int Dim, int Threads = 256>
struct Iteration {
  static constexpr int kThreads = Threads;
  Pseudo<Dim> ps;
  State out;  // new values
  SH_HD void operator()(int i, int j, int k) const { update_solid<Dim>(ps, ps.m, out, i, j, k); }
};

// The shear stresses on edges that lie on a high wall (index n along that axis, outside every
// cell's low edges): updated like all others, by a kernel of their own over the wall. P: the
// pseudo-transient updates (Stokes' own, or a model's that builds on them).
template <int Dim, class P = Pseudo<Dim>>
struct WallEdges {
  P ps;
  State out;
  int axis;  // the wall's normal
  SH_HD void operator()(int i, int j, int k) const {
    const Off o = ps.s.P.offset(i, j, k);
    if (axis != 2) out.Txy.p[o] = ps.Txy_new(o);
    if constexpr (Dim >= 3) {
      if (axis != 1) out.Txz.p[o] = ps.Txz_new(o);
      if (axis != 0) out.Tyz.p[o] = ps.Tyz_new(o);
    }
  }
};

// The stresses the iterations carry (tau as relaxed so far, not 2 mu eps(v)).
struct CarriedStress {
  State s;
  SH_HD real sxx(Off o) const { return s.Txx.p[o] - s.P.p[o]; }
  SH_HD real syy(Off o) const { return s.Tyy.p[o] - s.P.p[o]; }
  SH_HD real szz(Off o) const { return s.Tzz.p[o] - s.P.p[o]; }
  SH_HD real txy(Off o) const { return s.Txy.p[o]; }
  SH_HD real txz(Off o) const { return s.Txz.p[o]; }
  SH_HD real tyz(Off o) const { return s.Tyz.p[o]; }
};

// |residual| of one equation at cell (i, j, k) (its low face for momentum), walls excluded:
// 0, 1, 2 = momentum x, y, z; 3 = continuity.
template <int Dim>
struct AbsResidual {
  Kinematics<Dim> k;
  int equation;
  bool carried = false;  // the momentum balance of the carried stresses (CarriedStress)
  SH_HD real operator()(int i, int j, int kk) const {
    const Off o = k.s.P.offset(i, j, kk);
    if (equation == 3) return fabs(k.div(o));
    if (carried)
      return fabs(
          momentum<Dim>(CarriedStress{k.s}, k.c, k.m, equation, i, j, kk, o, k.s.P.sy, k.s.P.sz));
    const PhysicalStress<Dim> st{k, {}};
    return fabs(momentum<Dim>(st, k.c, k.m, equation, i, j, kk, o, k.s.P.sy, k.s.P.sz));
  }
};

// mu_max = max of mu over the cell's 3^Dim neighbourhood (pseudo-steps stable across jumps), at
// least `floor` (Params::mu_floor).
template <int Dim>
struct LocalMax {
  View mu, mu_max;
  real floor = 0;
  SH_HD void operator()(int i, int j, int k) const {
    const Off o = mu.offset(i, j, k);
    mu_max.p[o] = fmax(stencil::max_around<Dim>(mu, o), floor);
  }
};

}  // namespace staghorn::stokes
