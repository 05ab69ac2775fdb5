#pragma once
// One 3-D PT iteration of the coupled hydro-mechanical variant as a hand-tiled CUDA kernel
// (include only from code compiled by nvcc). It does what coupled::Iteration<3> does
// (coupled_kernels.hpp) and has the shape of the Stokes tiled kernel (models/stokes/tiled.hpp):
// a block of kTX x kTY threads covers an xy tile plus a one-cell rim and marches along z through
// a chunk of the region. At each plane k every thread copies its own column's next plane
// asynchronously into its slots of shared memory (StagingSlots: the values wait there, not in
// registers), shares through shared memory what its neighbours' stencils need, and computes
//   - p and the normal stresses of its cell at k (the tile and its low rim),
//   - tau_xy on its low edge at k, tau_xz and tau_yz on its low edges at k + 1 (double-buffered),
//   - pf of its cell (the tile): the Darcy flux from the pf and permeabilities of the six
//     neighbours (x and y from shared memory, z from the registers of the column),
// then the tile's threads update their three face velocities from the new stresses. Each new
// value is computed once per cell (the generic kernel recomputes its neighbours' p and stresses
// for every face that needs them), from the same pointwise operators (compaction_of once per cell,
// solid_pressure, fluid_of, the Stokes strain rates and momentum terms written out in their
// order), with fewer divisions (as the Stokes tiled kernel: relax() with one division per point,
// the three normal stresses of a cell sharing it; the face pseudo-step from one reciprocal of
// mu_max per cell), so results agree with the generic kernel to rounding
// (tests/models/hydromech/coupled_parity_test.cpp).
// The rim's values are recomputed by the neighbouring block, except the shear stresses on the
// high walls, which the rim threads there store (the generic path launches WallEdges for them).
// Offsets are 32-bit (the caller checks the size). Sources (verification) take the generic path.

#include <cuda_pipeline.h>

#include "core/backend.hpp"
#include "core/dispatch.hpp"
#include "models/hydromech/coupled_kernels.hpp"
#include "models/staggered_stokes/tiled_ops.hpp"

namespace staghorn::hydromech::coupled {
namespace tiled {

// The default launch shape (kTiledShapes[0] of coupled_kernels.hpp): threads per block along x and
// y (the tile is two cells narrower), blocks per SM (__launch_bounds__), cells along z per block.
constexpr int kTX = kTiledShapes[0].tx, kTY = kTiledShapes[0].ty;
constexpr int kMinBlocks = kTiledShapes[0].blocks;
constexpr int kChunk = kTiledShapes[0].chunk;
// Shared planes: the solid's and two of its own (pf, permeability).
using Planes = stokes::tiled::SharedPlanes<2>;

// The values of a thread's column that iterate stages for its next plane (its Column, in order),
// and which of them a variant reads: the old stresses for an elastic solid; the porosity's inputs
// at k + 1 where the porosity is fused, else scale and the stored excess.
enum Value : int {
  kP, kTxx, kTyy, kTzz, kTxy, kMm, kPhiOld, kScale, kDPf, kTxxO, kTyyO, kTzzO, kTxyO,
  kVx1, kVy1, kVz1, kMu1, kTxz1, kTyz1, kTxzO1, kTyzO1, kPf1, kExc1, kP1, kPhiOld1, kScale1,
  kValues
};
constexpr bool staged(Value v, bool elastic, bool fused) {
  switch (v) {
    case kTxxO: case kTyyO: case kTzzO: case kTxyO: case kTxzO1: case kTyzO1:
      return elastic;
    case kScale: case kExc1:
      return !fused;
    case kP1: case kPhiOld1: case kScale1:
      return fused;
    default:
      return true;
  }
}
// The staging plane of value v: the variant's staged values, packed.
constexpr int staging_plane(Value v, bool elastic, bool fused) {
  int plane = 0;
  for (int u = 0; u < v; ++u) plane += staged(Value(u), elastic, fused);
  return plane;
}
// The dynamic shared memory of a block of n threads: the shared planes, then the staging planes.
constexpr std::size_t shared_bytes(int n, bool elastic, bool fused) {
  return Planes::bytes(n) + std::size_t(staging_plane(kValues, elastic, fused)) * n * sizeof(real);
}

// A thread's staging slots (one per staged value, in the staging planes of a block of n
// threads), known at compile time: the copies and reads of the values a variant does not stage
// compile to nothing (and read 0), as does a read in a column past the arrays.
template <bool Elastic, bool Fused>
struct StagingSlots {
  real* planes;
  int n, t;
  bool active;
  template <Value V>
  __device__ real* slot() const {
    constexpr int plane = staging_plane(V, Elastic, Fused);
    return planes + plane * n + t;
  }
  template <Value V>
  __device__ void copy(const real* p, int at) const {
    if constexpr (staged(V, Elastic, Fused)) __pipeline_memcpy_async(slot<V>(), p + at, sizeof(real));
  }
  template <Value V>
  __device__ real value() const {
    if constexpr (staged(V, Elastic, Fused))
      return active ? *slot<V>() : real(0);
    else
      return real(0);
  }
};

// Raw pointers of one iteration, all with the same offsets: the old state and what the
// iteration reads besides, then the new values (dPf is read and updated in place).
struct Args {
  const real* __restrict__ Vx, * __restrict__ Vy, * __restrict__ Vz, * __restrict__ P, * __restrict__ Pf, * __restrict__ Txx, * __restrict__ Tyy, * __restrict__ Tzz, * __restrict__ Txy, * __restrict__ Txz, * __restrict__ Tyz;
  const real* __restrict__ mu, * __restrict__ mu_max, * __restrict__ exc, * __restrict__ phi_old, * __restrict__ scale;
  const real* __restrict__ Txx_o, * __restrict__ Tyy_o, * __restrict__ Tzz_o, * __restrict__ Txy_o, * __restrict__ Txz_o, * __restrict__ Tyz_o;
  real* __restrict__ dPf;  // read and written in place, by the thread of its cell only
  real* __restrict__ oVx, * __restrict__ oVy, * __restrict__ oVz, * __restrict__ oP, * __restrict__ oPf, * __restrict__ oTxx, * __restrict__ oTyy, * __restrict__ oTzz, * __restrict__ oTxy, * __restrict__ oTxz, * __restrict__ oTyz;
  int sy, sz;
  Constants k;
  int n[3];  // the block's cells per axis
  bool wall_hi[3];
  bool open_z[2];  // Fused: the fluid side below / above this block is open (extrapolated ghosts)
};

inline Args args_of(const Pseudo<3, false>& ps, const stokes::State& out, const View& Pf_new,
                    const Int3& n, const bool wall_hi[3]) {
  const stokes::State& s = ps.s;
  const Extra& x = ps.x;
  Args a;
  a.Vx = s.Vx.p, a.Vy = s.Vy.p, a.Vz = s.Vz.p, a.P = s.P.p, a.Pf = x.Pf.p;
  a.Txx = s.Txx.p, a.Tyy = s.Tyy.p, a.Tzz = s.Tzz.p;
  a.Txy = s.Txy.p, a.Txz = s.Txz.p, a.Tyz = s.Tyz.p;
  a.mu = ps.m.mu.p, a.mu_max = ps.m.mu_max.p, a.exc = x.exc.p, a.phi_old = x.phi_old.p;
  a.scale = x.scale.p;
  const View* old = ps.old.tau;
  a.Txx_o = old[0].p, a.Tyy_o = old[1].p, a.Tzz_o = old[2].p;
  a.Txy_o = old[3].p, a.Txz_o = old[4].p, a.Tyz_o = old[5].p;
  a.dPf = x.dPfdtau.p;
  a.oVx = out.Vx.p, a.oVy = out.Vy.p, a.oVz = out.Vz.p, a.oP = out.P.p, a.oPf = Pf_new.p;
  a.oTxx = out.Txx.p, a.oTyy = out.Tyy.p, a.oTzz = out.Tzz.p;
  a.oTxy = out.Txy.p, a.oTxz = out.Txz.p, a.oTyz = out.Tyz.p;
  a.sy = static_cast<int>(s.P.sy), a.sz = static_cast<int>(s.P.sz);
  a.k = ps.k;
  for (int d = 0; d < 3; ++d) a.n[d] = n[d], a.wall_hi[d] = wall_hi[d];
  a.open_z[0] = a.open_z[1] = false;
  return a;
}

using stokes::tiled::edge_strain;
using stokes::tiled::edge_stress;
using stokes::tiled::relax_factor;
using stokes::tiled::relaxed;
using stokes::tiled::relaxed_by;

// Elastic: the solid keeps stresses from the start of the step (Maxwell); a viscous one
// (shear_modulus = 0) never loads them, as with_old_stress ignores them there.
// Fused: the porosity excess of the iterate is computed here from phi_old, p and pf (Porosity of
// coupled_kernels.hpp, the same expression) instead of read from exc, which the model's porosity
// pass then need not write every iteration. Beyond an open fluid side the pass extrapolates the
// ghosts' porosity from the two cells inside (extrapolate_porosity_at_open_sides); the kernel
// does the same along z from the values its march holds (open_z), so fusion needs only the x and
// y sides closed.
template <int TX, int TY, int MinBlocks, bool Elastic, bool Fused>
__global__ void __launch_bounds__(TX* TY, MinBlocks)
    iterate(Region r, Args a, Chunks chunks, MarchOrder order) {
  constexpr int N = TX * TY;
  extern __shared__ real smem[];
  const Planes sp(smem, N);
  real* const sPf = sp.own;      // pf at k
  real* const sKp = sp.own + N;  // permeability at k
  const Constants& K = a.k;
  const stokes::Params& c = K.sp;
  const real el = K.elastic;

  const stokes::tiled::TileColumn<TX, TY> col(r, chunks, order, a.n, a.wall_hi);
  const int tx = col.tx, ty = col.ty, t = col.t, i = col.i, j = col.j, kb = col.kb, ke = col.ke;
  const bool tile = col.tile, cell_needed = col.cell_needed, store_xy = col.store_xy;
  const int sz = a.sz;
  int o = col.first_offset(a.sy, sz);
  auto ld_old = [&](const real* p, int at) { return Elastic ? col.load(p, at) : real(0); };
  auto perm = [&](real exc) { return K.mat.permeability(exc + K.phi_ref); };
  // The porosity excess of a cell (Porosity) and the cell's compaction (compaction_with), which
  // its plane needs next: one switch factor and one exponential for both.
  struct Porous {
    real exc;
    Compaction cmp;
  };
  auto porous = [&](real phi_old, real P, real Pf, real scale) {
    const real Pe = P - Pf;
    const Weakening wk = K.mat.weakening_of(Pe);
    const Material::PorosityAndRate pr = K.mat.porosity_and_rate(phi_old, Pe, wk.w, K.dt, scale);
    Porous p;
    p.exc = pr.phi - K.phi_ref;
    p.cmp = {pr.rate, K.mat.compaction_coefficient(p.exc + K.phi_ref, Pe, wk.slope, scale)};
    return p;
  };
  // The ghost beyond an open side from the first and second cells inside (LogLinearGhost).
  auto extrapolated = [&](real first, real second) {
    const real p0 = first + K.phi_ref, p1 = second + K.phi_ref;
    return (p0 > 0 && p1 > 0 ? p0 * p0 / p1 : p0) - K.phi_ref;
  };

  // tau_xz and tau_yz on the low edges of plane k + 1 (exz, eyz and the edge viscosities of
  // Kinematics, relaxed with the old stresses).
  auto edges_z = [&](real vx0, real vx1, real vy0, real vy1, real vz1, real txz_old, real tyz_old,
                     real txz_start, real tyz_start, real& txz, real& tyz, int buffer) {
    const real* const sMu0 = sp.mu + (buffer ^ 1) * N;
    const real* const sMu1 = sp.mu + buffer * N;
    using stokes::with_old_stress;
    if (tx >= 1) {
      const real e = edge_strain(vx1 - vx0, c.rdz, vz1 - sp.Vz1[t - 1], c.rdx);
      txz = edge_stress(c, txz_old, with_old_stress(e, el, txz_start), sMu1[t], sMu1[t - 1],
                        sMu0[t], sMu0[t - 1]);
      sp.Txz[buffer * N + t] = txz;
    }
    if (ty >= 1) {
      const real e = edge_strain(vy1 - vy0, c.rdz, vz1 - sp.Vz1[t - TX], c.rdy);
      tyz = edge_stress(c, tyz_old, with_old_stress(e, el, tyz_start), sMu1[t], sMu1[t - TX],
                        sMu0[t], sMu0[t - TX]);
      sp.Tyz[buffer * N + t] = tyz;
    }
  };

  // Prologue, plane kb - 1: the edges of plane kb, and the own column's szz, mu_max, porosity
  // excess, pf and permeability at kb - 1 for the z faces and the fluid's z neighbours.
  real vx0 = col.load(a.Vx, o), vy0 = col.load(a.Vy, o), vz0 = col.load(a.Vz, o);
  real txz0 = 0, tyz0 = 0, szz_prev = 0, inv_prev = 0;
  real pf_prev, pf0 = col.load(a.Pf, o), kp_prev, kp0;
  Porous cell0{};  // Fused: this column's porosity and compaction at k
  if (Fused) cell0 = porous(col.load(a.phi_old, o), col.load(a.P, o), pf0, col.load(a.scale, o));
  real exc_prev, exc0 = Fused ? cell0.exc : col.load(a.exc, o);
  {
    const int q = o - sz;
    const real vxm = col.load(a.Vx, q), vym = col.load(a.Vy, q), mum = col.load(a.mu, q);
    pf_prev = col.load(a.Pf, q);
    // Fused: plane kb - 1's porosity and compaction as the march computes a plane's (porous), so
    // that a chunk or region starting at kb gives the bits of one marching through it: the 1- and
    // the 2-GPU runs split along z then agree to the bit.
    Porous below{};
    const bool ghost_below = kb == 0 && a.open_z[0];
    if (!Fused)
      exc_prev = col.load(a.exc, q);
    else if (ghost_below)
      exc_prev = extrapolated(exc0, porous(col.load(a.phi_old, o + sz), col.load(a.P, o + sz),
                                           col.load(a.Pf, o + sz), col.load(a.scale, o + sz))
                                        .exc);
    else
      exc_prev = (below = porous(col.load(a.phi_old, q), col.load(a.P, q), pf_prev,
                                 col.load(a.scale, q)))
                     .exc;
    kp_prev = perm(exc_prev);
    kp0 = perm(exc0);
    sp.Vz1[t] = vz0;
    sp.mu[(kb & 1) * N + t] = col.load(a.mu, o);
    sp.mu[((kb & 1) ^ 1) * N + t] = mum;
    sp.Vx[t] = vxm;
    sp.Vy[t] = vym;
    __syncthreads();
    edges_z(vxm, vx0, vym, vy0, vz0, col.load(a.Txz, o), col.load(a.Tyz, o), ld_old(a.Txz_o, o),
            ld_old(a.Tyz_o, o), txz0, tyz0, kb & 1);
    col.store_z_edges(a, o, kb, txz0, tyz0);
    if (tile) {
      const stokes::tiled::CellStrain st = stokes::tiled::cell_strain(
          c, sp.Vx[t + 1] - vxm, sp.Vy[t + TX] - vym, vz0 - col.load(a.Vz, q));
      const real mm_prev = col.load(a.mu_max, q), P_prev = col.load(a.P, q),
                 phi_old_prev = col.load(a.phi_old, q);
      inv_prev = divide(1, mm_prev);
      const Compaction cmp =
          Fused && !ghost_below
              ? below.cmp
              : compaction_of(K, P_prev, pf_prev, phi_old_prev, exc_prev + K.phi_ref,
                              col.load(a.scale, q));
      const real Pn = solid_pressure<false>(K, P_prev, cmp, mm_prev, st.div, 0);
      const real e = stokes::with_old_stress(st.ezz - stokes::tiled::isotropic_rate(c, st), el,
                                             ld_old(a.Tzz_o, q));
      szz_prev = relaxed(col.load(a.Tzz, q), c.gdt * mm_prev, mum, e) - Pn;
    }
    __syncthreads();
  }

  // This column's values that plane k reads (its own, and those of plane k + 1 that the edges
  // and the fluid of k need), copied one plane ahead so that memory works while the plane
  // computes. The copies are asynchronous, into this thread's slots of the staging planes: the
  // values wait there, not in registers, which a kernel holding a plane's stresses, porosity and
  // fluid as well would otherwise spill to local memory.
  const StagingSlots<Elastic, Fused> slots{smem + Planes::kCount * N, N, t, col.active};
  struct Column {
    real P, Txx, Tyy, Tzz, Txy, mm, phi_old, scale, dPf, Txx_o, Tyy_o, Tzz_o, Txy_o;
    real vx1, vy1, vz1, mu1, Txz1, Tyz1, Txz_o1, Tyz_o1, pf1, exc1;
    real P1, phi_old1, scale1;  // Fused: for the porosity excess at k + 1 (exc1 is not loaded)
  };
  // Issues the copies of the column at offset q (those of the values the variant stages).
  auto stage = [&](int q) {
    if (!col.active) return;
    const int u = q + sz;
    const auto& s = slots;
    s.template copy<kP>(a.P, q), s.template copy<kTxx>(a.Txx, q);
    s.template copy<kTyy>(a.Tyy, q), s.template copy<kTzz>(a.Tzz, q);
    s.template copy<kTxy>(a.Txy, q), s.template copy<kMm>(a.mu_max, q);
    s.template copy<kPhiOld>(a.phi_old, q), s.template copy<kScale>(a.scale, q);
    s.template copy<kDPf>(a.dPf, q), s.template copy<kTxxO>(a.Txx_o, q);
    s.template copy<kTyyO>(a.Tyy_o, q), s.template copy<kTzzO>(a.Tzz_o, q);
    s.template copy<kTxyO>(a.Txy_o, q), s.template copy<kVx1>(a.Vx, u);
    s.template copy<kVy1>(a.Vy, u), s.template copy<kVz1>(a.Vz, u);
    s.template copy<kMu1>(a.mu, u), s.template copy<kTxz1>(a.Txz, u);
    s.template copy<kTyz1>(a.Tyz, u), s.template copy<kTxzO1>(a.Txz_o, u);
    s.template copy<kTyzO1>(a.Tyz_o, u), s.template copy<kPf1>(a.Pf, u);
    s.template copy<kExc1>(a.exc, u), s.template copy<kP1>(a.P, u);
    s.template copy<kPhiOld1>(a.phi_old, u), s.template copy<kScale1>(a.scale, u);
    __pipeline_commit();
  };
  // The staged column, once its copies have landed.
  auto take = [&]() {
    __pipeline_wait_prior(0);
    const auto& s = slots;
    return Column{s.template value<kP>(),      s.template value<kTxx>(),
                  s.template value<kTyy>(),    s.template value<kTzz>(),
                  s.template value<kTxy>(),    s.template value<kMm>(),
                  s.template value<kPhiOld>(), s.template value<kScale>(),
                  s.template value<kDPf>(),    s.template value<kTxxO>(),
                  s.template value<kTyyO>(),   s.template value<kTzzO>(),
                  s.template value<kTxyO>(),   s.template value<kVx1>(),
                  s.template value<kVy1>(),    s.template value<kVz1>(),
                  s.template value<kMu1>(),    s.template value<kTxz1>(),
                  s.template value<kTyz1>(),   s.template value<kTxzO1>(),
                  s.template value<kTyzO1>(),  s.template value<kPf1>(),
                  s.template value<kExc1>(),   s.template value<kP1>(),
                  s.template value<kPhiOld1>(), s.template value<kScale1>()};
  };
  stage(o);
  for (int k = kb; k < ke; ++k, o += sz) {
    asm volatile("" : "+r"(o));  // as in the Stokes kernel: addresses from o, not 40 pointers
    const int b0 = k & 1, b1 = b0 ^ 1;
    // Read out before the next plane's copies overwrite the slots (the same thread's reads and
    // copies of a slot are ordered).
    const Column now = take();
    if (k + 1 < ke) stage(o + sz);
    const real mm = now.mm, vx1 = now.vx1, vy1 = now.vy1, vz1 = now.vz1;
    const real pf1 = now.pf1;
    Porous cell1{};  // Fused: the porosity at k + 1 (beyond an open top: extrapolated)
    if (Fused) {
      if (k + 1 == a.n[2] && a.open_z[1])
        cell1.exc = extrapolated(exc0, exc_prev);
      else
        cell1 = porous(now.phi_old1, now.P1, pf1, now.scale1);
    }
    const real exc1 = Fused ? cell1.exc : now.exc1;
    const real kp1 = perm(exc1), inv = divide(1, mm);
    sp.Vx[t] = vx0;
    sp.Vy[t] = vy0;
    sp.Vz1[t] = vz1;
    sp.mu[b1 * N + t] = now.mu1;
    sp.inv[b0 * N + t] = inv;
    sp.density[b0 * N + t] = exc0;
    sPf[t] = pf0;
    sKp[t] = kp0;
    __syncthreads();
    const real* const sMu0 = sp.mu + b0 * N;
    const real mu0 = sMu0[t];

    // p and the normal stresses of the cell (Pseudo::P_new, Txx_new ...).
    real szz = 0;
    if (cell_needed) {
      const stokes::tiled::CellStrain st =
          stokes::tiled::cell_strain(c, sp.Vx[t + 1] - vx0, sp.Vy[t + TX] - vy0, vz1 - vz0);
      const real g = c.gdt * mm, f = relax_factor(g, mu0);
      const Compaction cmp =
          Fused ? cell0.cmp
                : compaction_of(K, now.P, pf0, now.phi_old, exc0 + K.phi_ref, now.scale);
      const real Pn = solid_pressure<false>(K, now.P, cmp, mm, st.div, 0);
      using stokes::with_old_stress;
      const real div3 = stokes::tiled::isotropic_rate(c, st);
      const real Txxn = relaxed_by(f, now.Txx, g, with_old_stress(st.exx - div3, el, now.Txx_o));
      const real Tyyn = relaxed_by(f, now.Tyy, g, with_old_stress(st.eyy - div3, el, now.Tyy_o));
      const real Tzzn = relaxed_by(f, now.Tzz, g, with_old_stress(st.ezz - div3, el, now.Tzz_o));
      sp.Sxx[t] = Txxn - Pn;
      sp.Syy[t] = Tyyn - Pn;
      szz = Tzzn - Pn;
      if (tile) {
        a.oP[o] = Pn, a.oTxx[o] = Txxn, a.oTyy[o] = Tyyn, a.oTzz[o] = Tzzn;
        // The fluid pressure (Iteration: fluid, fluid_step, pt::advance).
        const real pf[7] = {pf0, sPf[t - 1], sPf[t + 1], sPf[t - TX], sPf[t + TX], pf_prev, pf1};
        const real kp[7] = {kp0, sKp[t - 1], sKp[t + 1], sKp[t - TX], sKp[t + TX], kp_prev, kp1};
        const FluidEval fl = fluid_of<3, false>(K, pf, kp, exc0 + K.phi_ref, cmp, 0);
        real v = now.dPf;
        a.oPf[o] = pt::advance(pf0, fl.R, v, fluid_step(K, fl, mu0, mm));
        a.dPf[o] = v;
      }
    }
    // tau_xy on the low xy edge of the cell (Pseudo::Txy_new).
    if (tx >= 1 && ty >= 1) {
      const real e = edge_strain(vx0 - sp.Vx[t - TX], c.rdy, vy0 - sp.Vy[t - 1], c.rdx);
      const real txy = edge_stress(c, now.Txy, stokes::with_old_stress(e, el, now.Txy_o), sMu0[t],
                                   sMu0[t - 1], sMu0[t - TX], sMu0[t - 1 - TX]);
      sp.Txy[t] = txy;
      if (store_xy) a.oTxy[o] = txy;
    }
    real txz1 = 0, tyz1 = 0;
    edges_z(vx0, vx1, vy0, vy1, vz1, now.Txz1, now.Tyz1, now.Txz_o1, now.Tyz_o1, txz1, tyz1, b1);
    col.store_z_edges(a, o + sz, k + 1, txz1, tyz1);
    __syncthreads();

    // The tile's face velocities (stokes::momentum_x/y/z with the new stresses; the buoyancy's
    // "density" is the porosity excess, as buoyant() hands it to the generic kernel).
    if (tile) {
      const stokes::tiled::FaceStresses fs{
          sp.Sxx, sp.Syy, sp.Txy, sp.Txz + b0 * N, sp.Tyz + b0 * N, szz, szz_prev, txz0,
          txz1,   tyz0,   tyz1};
      const bool wall[3] = {i == 0 && c.wall_lo[0], j == 0 && c.wall_lo[1], k == 0 && c.wall_lo[2]};
      real v[3] = {vx0, vy0, vz0};
      stokes::tiled::new_face_velocities<TX>(c, t, fs, {sp.density + b0 * N, exc0, exc_prev},
                                             {sp.inv + b0 * N, inv, inv_prev}, wall, v);
      a.oVx[o] = v[0], a.oVy[o] = v[1], a.oVz[o] = v[2];
    }
    vx0 = vx1, vy0 = vy1, vz0 = vz1;
    txz0 = txz1, tyz0 = tyz1, szz_prev = szz, inv_prev = inv, cell0 = cell1;
    exc_prev = exc0, exc0 = exc1, pf_prev = pf0, pf0 = pf1, kp_prev = kp0, kp0 = kp1;
  }
}

}  // namespace tiled

// Runs the tiled iteration over region r on `stream`.
// fused: the porosity excess computed in the kernel (see iterate).
template <int TX = tiled::kTX, int TY = tiled::kTY, int MinBlocks = tiled::kMinBlocks>
void launch_tiled(CUstream_st* stream, const Region& r, const tiled::Args& a, bool fused,
                  int chunk = tiled::kChunk) {
  const Int3 e = r.extent();
  if (e.x <= 0 || e.y <= 0 || e.z <= 0) return;
  const Chunks chunks = Chunks::uniform(chunk);
  dispatch_bool("elastic", a.k.elastic != 0, [&](auto elastic) {
    dispatch_bool("fused porosity", fused, [&](auto fuse) {
      constexpr bool E = decltype(elastic)::value, F = decltype(fuse)::value;
      const auto kernel = tiled::iterate<TX, TY, MinBlocks, E, F>;
      const int bytes = static_cast<int>(tiled::shared_bytes(TX * TY, E, F));
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
      const MarchOrder order =
          stokes::tiled::march_order(r, TX, TY, chunks, resident_blocks(kernel, TX * TY, bytes));
      kernel<<<order.blocks(), dim3(TX, TY, 1), bytes, stream>>>(r, a, chunks, order);
    });
  });
  check_launch("coupled tiled iteration launch");
}

}  // namespace staghorn::hydromech::coupled
