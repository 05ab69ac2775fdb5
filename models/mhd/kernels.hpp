#pragma once
// The MHD right-hand side of docs/models/mhd.md (Pekkila et al. 2022, eqs. B.1-B.4) fused with the
// 2N-storage RK3 update, and the per-cell quantities behind the time-step limits and diagnostics.
// The rates divide cell values through divide() (core/fast_math.hpp): on the GPU CUDA's division
// without the branch to its slow path (which only quotients beyond about 1e+-290 take), so that
// the compiler can interleave the divisions with the rest; the same quotients elsewhere.

#include <cmath>

#include "core/fast_math.hpp"
#include "core/field.hpp"
#include "core/vector_math.hpp"
#include "models/mhd/operators.hpp"

namespace staghorn::mhd {

// The overloads of std (float ones too, on the host and the device): an unqualified exp(float)
// would otherwise find the C library's double exp on the host.
using std::cos;
using std::exp;
using std::fabs;
using std::sin;
using std::sqrt;

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

// The ratios of constants that the equations take, worked out once per launch instead of per cell
// (a double division is a chain of a dozen dependent instructions on a GPU). Division rounds
// correctly on the host and the device alike, so both backends multiply by the same ratios.
struct Ratios {
  real r_mu0;     // 1 / mu0
  real r_cp;      // 1 / cp
  real gamma_cp;  // gamma / cp
  real r_cp_gm1;  // 1 / (cp (gamma - 1)): the temperature is cs2 r_cp_gm1
};

SH_HD inline Ratios ratios_of(const Physics& ph) {
  return {1 / ph.mu0, 1 / ph.cp, ph.gamma / ph.cp, 1 / (ph.cp * (ph.gamma - 1))};
}

// Pencil-style helical forcing held fixed over one RK3 step: the force per unit mass
// f = Re[(re + i im) exp(i (k . x + phase))] (amplitude included).
struct Forcing {
  bool on = false;
  Vec3 k, re, im;
  real phase = 0;
  Vec3 origin, dx;
  Int3 offset;  // global index of local cell (0, 0, 0): coordinates independent of the ranks
  SH_HD real x(int a, int i) const { return origin[a] + (real(offset[a] + i) + real(0.5)) * dx[a]; }
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

// Everything the equations need at one cell: values and derivatives, gathered one variable at a
// time (a tiled kernel can then stage one variable at a time through shared memory).
struct Local {
  real lnrho = 0, ss = 0;
  Vec3 u, glnrho, gss;
  real lap_lnrho = 0, lap_ss = 0;
  VectorDerivatives du, dA;
};

// Adds variable v, whose value is at p (neighbours at the strides of ax), to L.
template <int Order, bool Entropy>
SH_HD inline void gather(int v, const real* p, const Axes& ax, Local& L) {
  if (v == kLnrho) {
    L.lnrho = *p;
    L.glnrho = gradient<Order>(p, ax);
    if (Entropy) L.lap_lnrho = laplacian<Order>(p, ax);
  } else if (v <= kUz) {
    L.u[v - kUx] = *p;
    add_component<Order>(p, ax, v - kUx, L.du);
  } else if (v <= kAz) {
    add_component<Order>(p, ax, v - kAx, L.dA);
  } else {
    L.ss = *p;
    L.gss = gradient<Order>(p, ax);
    L.lap_ss = laplacian<Order>(p, ax);
  }
}

// Quantities several equations share, from the cell's values: the density and the sound speed
// squared (the reference value when isothermal).
struct Thermo {
  real rho, cs2;
};

// vmath::exp: CUDA's exp on the GPU; on the CPU arithmetic that a row loop vectorises (libm's exp
// is a call, which keeps the pencil kernel's thermodynamics loop scalar), within an ulp of libm's.
SH_HD inline real sound_speed2(const Physics& ph, const Ratios& q, bool entropy, real lnrho,
                               real ss) {
  if (!entropy) return ph.cs2_0;
  return ph.cs2_0 * vmath::exp(q.gamma_cp * ss + (ph.gamma - 1) * (lnrho - ph.lnrho0));
}

template <bool Entropy>
SH_HD inline Thermo thermo(const Physics& ph, const Ratios& q, real lnrho, real ss) {
  return {vmath::exp(lnrho), sound_speed2(ph, q, Entropy, lnrho, ss)};
}

// The traceless rate of strain S and div u, from the velocity gradient.
struct Strain {
  Mat3 S;
  real div_u;
  SH_HD real SS() const {  // S:S
    real sum = 0;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) sum += S.m[a][b] * S.m[a][b];
    return sum;
  }
};

SH_HD inline Strain strain(const VectorDerivatives& du) {
  Strain st;
  st.div_u = du.div();
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      st.S.m[a][b] =
          real(0.5) * (du.grad.m[a][b] + du.grad.m[b][a]) - (a == b ? st.div_u * real(1.0 / 3) : 0);
  return st;
}

// B = curl A + B_ext and j = curl B / mu0 from A's derivatives.
struct Magnetic {
  Vec3 B, J;
};

SH_HD inline Magnetic magnetic(const VectorDerivatives& dA, const Physics& ph, const Ratios& q) {
  return {dA.curl() + ph.B_ext, q.r_mu0 * dA.curl_curl()};
}

// (B.1) continuity
SH_HD inline real continuity(const Vec3& u, const Vec3& glnrho, real div_u) {
  return -dot(u, glnrho) - div_u;
}

// (B.2) momentum: advection, pressure, Lorentz force (JxB = j x B), viscosity, forcing
template <bool Entropy>
SH_HD inline Vec3 momentum(const Physics& ph, const Ratios& q, const Vec3& u,
                           const VectorDerivatives& du, const Strain& st, const Vec3& glnrho,
                           const Vec3& gss, const Thermo& th, const Vec3& JxB, const Vec3& force) {
  const Vec3 pressure = Entropy ? -th.cs2 * (q.r_cp * gss + glnrho) : -ph.cs2_0 * glnrho;
  const Vec3 viscous =
      ph.nu * (du.lap + real(1.0 / 3) * du.grad_div + 2 * (st.S * glnrho)) + ph.zeta * du.grad_div;
  return pressure - du.grad * u + divide(real(1), th.rho) * JxB + viscous + force;
}

// (B.4) induction, uncurled: dA/dt = u x B + eta lap A
SH_HD inline Vec3 induction(const Physics& ph, const Vec3& u, const Vec3& B, const Vec3& lapA) {
  return cross(u, B) + ph.eta * lapA;
}

// The scalars' derivatives that the entropy equation takes.
struct ScalarDerivatives {
  Vec3 grad;
  real lap = 0;
};

// (B.3) entropy: rho T Ds/Dt = H - C + div(K grad T) + eta mu0 j^2 + 2 rho nu S:S
//                              + zeta rho (div u)^2      (J2 = j.j, SS = S:S)
SH_HD inline real entropy(const Physics& ph, const Ratios& q, const Vec3& u,
                          const ScalarDerivatives& dlnrho, const ScalarDerivatives& dss,
                          const Thermo& th, real J2, real SS, real div_u) {
  const real T = th.cs2 * q.r_cp_gm1;
  const Vec3 glnT = q.gamma_cp * dss.grad + (ph.gamma - 1) * dlnrho.grad;
  const real lap_lnT = q.gamma_cp * dss.lap + (ph.gamma - 1) * dlnrho.lap;
  // div(K grad T) = K T (lap ln T + |grad ln T|^2) for a uniform K.
  const real conduction = ph.K * T * (lap_lnT + dot(glnT, glnT));
  const real heat = ph.heating - ph.cooling + conduction + ph.eta * ph.mu0 * J2 +
                    2 * th.rho * ph.nu * SS + ph.zeta * th.rho * div_u * div_u;
  return -dot(u, dss.grad) + divide(heat, th.rho * T);
}

// F(f) of docs/models/mhd.md at a cell: d ln rho/dt, du/dt, dA/dt and ds/dt (pointwise, from the
// gathered derivatives and thermo<Entropy>(ph, q, L.lnrho, L.ss); `force` already evaluated at the
// cell; q = ratios_of(ph)). The CPU pencil kernel evaluates th (the exponentials) in a loop of its
// own, so that this one has no calls and vectorises.
template <bool Entropy>
SH_HD inline void rates(const Local& L, const Physics& ph, const Ratios& q, const Thermo& th,
                        const Vec3& force, bool kinematic, real* rhs) {
  const Magnetic m = magnetic(L.dA, ph, q);
  const Strain st = strain(L.du);
  rhs[kLnrho] = continuity(L.u, L.glnrho, st.div_u);
  const Vec3 dudt =
      momentum<Entropy>(ph, q, L.u, L.du, st, L.glnrho, L.gss, th, cross(m.J, m.B), force);
  rhs[kUx] = dudt.x, rhs[kUy] = dudt.y, rhs[kUz] = dudt.z;
  const Vec3 dAdt = induction(ph, L.u, m.B, L.dA.lap);
  rhs[kAx] = dAdt.x, rhs[kAy] = dAdt.y, rhs[kAz] = dAdt.z;
  if (Entropy)
    rhs[kSs] = entropy(ph, q, L.u, {L.glnrho, L.lap_lnrho}, {L.gss, L.lap_ss}, th, dot(m.J, m.J),
                       st.SS(), st.div_u);
  if (kinematic)  // only the induction equation evolves
    for (int v : {kLnrho, kUx, kUy, kUz, kSs}) rhs[v] = 0;
}

template <bool Entropy>
SH_HD inline void rates(const Local& L, const Physics& ph, const Ratios& q, const Vec3& force,
                        bool kinematic, real* rhs) {
  rates<Entropy>(L, ph, q, thermo<Entropy>(ph, q, L.lnrho, L.ss), force, kinematic, rhs);
}

// What one RK3 stage needs besides the cell: w = alpha w + dt F(f), f_out = f + beta w.
// The first stage (alpha = 0) need not read w, and the last need not write it (the next step
// starts from alpha = 0): 80 instead of 96 bytes per variable and step.
struct StageArgs {
  Vars in, out, w;
  View shape;  // strides of the shared layout
  Axes ax;
  Physics ph;
  Forcing force;
  real alpha, beta, dt;
  bool kinematic;  // only A evolves (u, ln rho, s held): kinematic dynamo problems
  bool read_w = true, write_w = true;
};

// The 2N update of every variable of a cell from its rates.
template <int Vars_>
SH_HD inline void update(const StageArgs& a, std::ptrdiff_t o, const real* rhs) {
#pragma unroll
  for (int v = 0; v < Vars_; ++v) {
    const real wv = a.alpha * (a.read_w ? a.w.p[v][o] : 0) + a.dt * rhs[v];
    if (a.write_w) a.w.p[v][o] = wv;
    a.out.p[v][o] = a.in.p[v][o] + a.beta * wv;
  }
}

// One RK3 stage on one cell, every variable read straight from memory (the reference kernel).
template <int Order, bool Entropy>
struct Substep {
  StageArgs a;
  static constexpr int kVars = Entropy ? kMaxVars : kMaxVars - 1;

  SH_HD void operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = a.shape.offset(i, j, k);
    Local L;
    for (int v = 0; v < kVars; ++v) gather<Order, Entropy>(v, a.in.p[v] + o, a.ax, L);
    real rhs[kMaxVars];
    rates<Entropy>(L, a.ph, ratios_of(a.ph), a.force.on ? a.force.at(i, j, k) : Vec3{}, a.kinematic,
                   rhs);
    update<kVars>(a, o, rhs);
  }
};

// Along the axes held by one rank the tiled (CUDA) and pencil (CPU) kernels write each new value
// into the halo cells that are its periodic images, which replaces the halo exchange along them
// (Mhd's constructor).
// Where the periodic image of cell c lies along an axis of n cells whose halo (R deep) is the
// block's own opposite side (n = 0: no images along it): c + n for the first R cells, c - n for the
// last R, else nowhere (0).
template <int R>
SH_HD inline int image_shift(int c, int n) {
  return n == 0 ? 0 : (c < R ? n : (c >= n - R ? -n : 0));
}

// The periodic images of cell (i, j, k) (offset o) in the halo (faces, edges, corners: up to 7),
// the same values a periodic self-exchange would copy there.
template <int R, int Vars_>
SH_HD inline void write_images(const StageArgs& a, std::ptrdiff_t o, int i, int j, int k, Int3 wrap,
                               const real* f) {
  const int dx = image_shift<R>(i, wrap.x), dy = image_shift<R>(j, wrap.y),
            dz = image_shift<R>(k, wrap.z);
  if (dx == 0 && dy == 0 && dz == 0) return;
  for (int m = 1; m < 8; ++m) {
    const bool mx = m & 1, my = m & 2, mz = m & 4;
    if ((mx && dx == 0) || (my && dy == 0) || (mz && dz == 0)) continue;
    const std::ptrdiff_t d =
        (mx ? dx : 0) + (my ? dy : 0) * a.shape.sy + (mz ? dz : 0) * a.shape.sz;
#pragma unroll
    for (int v = 0; v < Vars_; ++v) a.out.p[v][o + d] = f[v];
  }
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
        const real cs2 = sound_speed2(ph, ratios_of(ph), entropy, lnrho, entropy ? f.p[kSs][o] : 0);
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
        return real(0.5) * exp(lnrho) * dot(u, u);
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
