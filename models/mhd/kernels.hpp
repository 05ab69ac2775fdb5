#pragma once
// The MHD right-hand side of docs/models/mhd.md (Pekkila et al. 2022, eqs. B.1-B.4) fused with the
// 2N-storage RK3 update, and the per-cell quantities behind the time-step limits and diagnostics.

#include <cmath>

#include "core/field.hpp"
#include "models/mhd/operators.hpp"

namespace staghorn::mhd {

// Slots of the state variables; the entropy is last so that an isothermal run simply has one
// variable less.
enum Var { kLnrho = 0, kUx, kUy, kUz, kAx, kAy, kAz, kSs, kMaxVars };

// Physical parameters, in the code's units.
struct Physics {
  real cs2_0;   // sound speed squared at the reference state (lnrho0, s = 0)
  real gamma;   // adiabatic index
  real cp;      // heat capacity at constant pressure
  real lnrho0;  // reference log density
  real nu, zeta, eta, mu0;
  real K;                 // radiative conductivity
  real heating, cooling;  // explicit H and C (per volume)
  Vec3 B_ext;             // imposed uniform field, added to curl A
};

// Pencil-style helical forcing held fixed over one RK3 step: the force per unit mass
// f = Re[(re + i im) exp(i (k . x + phase))] (amplitude included).
struct Forcing {
  bool on = false;
  Vec3 k, re, im;
  real phase = 0;
  Vec3 origin, dx;
  Int3 offset;  // global index of local cell (0, 0, 0): coordinates independent of the ranks
  SH_HD real x(int a, int i) const { return origin[a] + ((offset[a] + i) + 0.5) * dx[a]; }
  SH_HD Vec3 at(int i, int j, int k_) const {
    const real t = k.x * x(0, i) + k.y * x(1, j) + k.z * x(2, k_) + phase;
    const real c = cos(t), s = sin(t);
    return c * re - s * im;
  }
};

// Pointers to the local origin (cell (0, 0, 0)) of each variable's field; all share one layout.
struct Vars {
  real* p[kMaxVars];
};

// One RK3 stage on one cell: w = alpha w + dt F(f), f_out = f + beta w.
template <int Order, bool Entropy>
struct Substep {
  Vars in, out, w;
  View shape;  // strides of the shared layout
  Axes ax;
  Physics ph;
  Forcing force;
  real alpha, beta, dt;
  bool kinematic;  // only A evolves (u, ln rho, s held): kinematic dynamo problems
  static constexpr int kVars = Entropy ? kMaxVars : kMaxVars - 1;

  SH_HD void operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = shape.offset(i, j, k);
    real rhs[kMaxVars];
    rates(o, i, j, k, rhs);
    if (kinematic)
      for (int v = 0; v < kVars; ++v)
        if (v < kAx || v > kAz) rhs[v] = 0;
#pragma unroll
    for (int v = 0; v < kVars; ++v) {
      const real wv = alpha * w.p[v][o] + dt * rhs[v];
      w.p[v][o] = wv;
      out.p[v][o] = in.p[v][o] + beta * wv;
    }
  }

  // F(f) at offset o: d ln rho/dt, du/dt, dA/dt and ds/dt.
  SH_HD void rates(std::ptrdiff_t o, int i, int j, int k, real* rhs) const {
    const real* lnrho = in.p[kLnrho] + o;
    const real* const u_at[3] = {in.p[kUx] + o, in.p[kUy] + o, in.p[kUz] + o};
    const real* const A_at[3] = {in.p[kAx] + o, in.p[kAy] + o, in.p[kAz] + o};
    const Vec3 u{*u_at[0], *u_at[1], *u_at[2]};
    const Vec3 glnrho = gradient<Order>(lnrho, ax);
    const VectorDerivatives du = vector_derivatives<Order>(u_at, ax);
    const VectorDerivatives dA = vector_derivatives<Order>(A_at, ax);

    const real rho = exp(*lnrho);
    const Vec3 B = dA.curl() + ph.B_ext;
    const Vec3 J = (1 / ph.mu0) * dA.curl_curl();
    const real div_u = du.div();
    Mat3 S;  // traceless rate of strain
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        S.m[a][b] = 0.5 * (du.grad.m[a][b] + du.grad.m[b][a]) - (a == b ? div_u / 3 : 0);

    // (B.1) continuity
    rhs[kLnrho] = -dot(u, glnrho) - div_u;

    // (B.2) momentum: advection, pressure, Lorentz force, viscosity, forcing
    Vec3 pressure = -ph.cs2_0 * glnrho;
    real cs2 = ph.cs2_0, ss = 0;
    Vec3 gss;
    if (Entropy) {
      ss = in.p[kSs][o];
      gss = gradient<Order>(in.p[kSs] + o, ax);
      cs2 = ph.cs2_0 * exp(ph.gamma * ss / ph.cp + (ph.gamma - 1) * (*lnrho - ph.lnrho0));
      pressure = -cs2 * ((1 / ph.cp) * gss + glnrho);
    }
    const Vec3 viscous =
        ph.nu * (du.lap + (1.0 / 3) * du.grad_div + 2 * (S * glnrho)) + ph.zeta * du.grad_div;
    Vec3 dudt = pressure - du.grad * u + (1 / rho) * cross(J, B) + viscous;
    if (force.on) dudt = dudt + force.at(i, j, k);
    rhs[kUx] = dudt.x, rhs[kUy] = dudt.y, rhs[kUz] = dudt.z;

    // (B.4) induction, uncurled: dA/dt = u x B + eta lap A
    const Vec3 dAdt = cross(u, B) + ph.eta * dA.lap;
    rhs[kAx] = dAdt.x, rhs[kAy] = dAdt.y, rhs[kAz] = dAdt.z;

    // (B.3) entropy: rho T Ds/Dt = H - C + div(K grad T) + eta mu0 j^2 + 2 rho nu S:S
    //                              + zeta rho (div u)^2
    if (Entropy) {
      const real T = cs2 / (ph.cp * (ph.gamma - 1));
      const Vec3 glnT = (ph.gamma / ph.cp) * gss + (ph.gamma - 1) * glnrho;
      const real lap_lnT = (ph.gamma / ph.cp) * laplacian<Order>(in.p[kSs] + o, ax) +
                           (ph.gamma - 1) * laplacian<Order>(lnrho, ax);
      real SS = 0;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) SS += S.m[a][b] * S.m[a][b];
      // div(K grad T) = K T (lap ln T + |grad ln T|^2) for a uniform K.
      const real conduction = ph.K * T * (lap_lnT + dot(glnT, glnT));
      const real heat = ph.heating - ph.cooling + conduction + ph.eta * ph.mu0 * dot(J, J) +
                        2 * rho * ph.nu * SS + ph.zeta * rho * div_u * div_u;
      rhs[kSs] = -dot(u, gss) + heat / (rho * T);
    }
  }
};

// Local sound speed squared (the reference value when isothermal).
SH_HD inline real sound_speed2(const Physics& ph, bool entropy, real lnrho, real ss) {
  if (!entropy) return ph.cs2_0;
  return ph.cs2_0 * exp(ph.gamma * ss / ph.cp + (ph.gamma - 1) * (lnrho - ph.lnrho0));
}

// B = curl A + B_ext at a cell.
template <int Order>
SH_HD inline Vec3 magnetic_field(const Vars& f, std::ptrdiff_t o, const Axes& ax,
                                 const Vec3& B_ext) {
  const real *ax_ = f.p[kAx] + o, *ay = f.p[kAy] + o, *az = f.p[kAz] + o;
  return Vec3{d_da<Order>(az, ax, 1) - d_da<Order>(ay, ax, 2),
              d_da<Order>(ax_, ax, 2) - d_da<Order>(az, ax, 0),
              d_da<Order>(ay, ax, 0) - d_da<Order>(ax_, ax, 1)} +
         B_ext;
}

// Per-cell quantities reduced over the grid: time-step rates and diagnostics.
enum class CellQuantity {
  advective_rate,  // sum_a (|u_a| + c_fast) / dx_a
  u2,              // |u|^2
  B2,              // |B|^2
  rho,             // density
  kinetic,         // rho |u|^2 / 2
  div_u_abs        // |div u|
};

template <int Order>
struct CellValue {
  Vars f;
  View shape;
  Axes ax;
  Physics ph;
  bool entropy;
  CellQuantity q;

  SH_HD real operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = shape.offset(i, j, k);
    const real lnrho = f.p[kLnrho][o];
    const Vec3 u{f.p[kUx][o], f.p[kUy][o], f.p[kUz][o]};
    switch (q) {
      case CellQuantity::advective_rate: {
        const Vec3 B = magnetic_field<Order>(f, o, ax, ph.B_ext);
        const real rho = exp(lnrho);
        const real cs2 = sound_speed2(ph, entropy, lnrho, entropy ? f.p[kSs][o] : 0);
        const real c_fast = sqrt(cs2 + dot(B, B) / (ph.mu0 * rho));
        return (fabs(u.x) + c_fast) * ax.r1[0] + (fabs(u.y) + c_fast) * ax.r1[1] +
               (fabs(u.z) + c_fast) * ax.r1[2];
      }
      case CellQuantity::u2:
        return dot(u, u);
      case CellQuantity::B2: {
        const Vec3 B = magnetic_field<Order>(f, o, ax, ph.B_ext);
        return dot(B, B);
      }
      case CellQuantity::rho:
        return exp(lnrho);
      case CellQuantity::kinetic:
        return 0.5 * exp(lnrho) * dot(u, u);
      case CellQuantity::div_u_abs:
        return fabs(d_da<Order>(f.p[kUx] + o, ax, 0) + d_da<Order>(f.p[kUy] + o, ax, 1) +
                    d_da<Order>(f.p[kUz] + o, ax, 2));
    }
    return 0;
  }
};

// The thermal diffusivity gamma K / (rho cp) (largest where rho is smallest).
struct ThermalDiffusivity {
  real* lnrho;
  View shape;
  real factor;  // gamma K / cp
  SH_HD real operator()(int i, int j, int k) const {
    return factor * exp(-lnrho[shape.offset(i, j, k)]);
  }
};

}  // namespace staghorn::mhd
