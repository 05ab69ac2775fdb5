#pragma once
// One 3-D PT iteration of the Stokes model as a hand-tiled CUDA kernel (include only from code
// compiled by nvcc). It does what Iteration<3> does (docs/models/stokes.md) but reads each array
// about once: a block of kTX x kTY threads covers an xy tile plus a one-cell rim and marches
// along z through a chunk of the region. At each plane k every thread loads the values of its
// own column (the velocities, mu one plane ahead: k + 1), shares the few that its neighbours'
// stencils need through shared memory, and computes
//   - P and the normal stresses of its cell at k (needed by the tile and the low rim),
//   - tau_xy on its low edge at k (needed by the tile and the high rim),
//   - tau_xz, tau_yz on its low edges at k + 1 (kept for the next plane: double-buffered),
// then the tile's threads update their three face velocities from those new stresses. The
// stresses of plane k - 1 that the z faces need stay in registers. Only the tile's own values are
// written: the rim's are recomputed by the neighbouring block (a few flops for no extra traffic),
// except the shear stresses on the high walls, which the rim threads there store (the generic
// kernel needs WallEdges<3>, three strided launches, for them).
//
// The arithmetic is the generic kernel's, term for term and in the same order, except that the
// divisions are fewer: relax() as tau' = f (tau + 2 G~dtau e) with f = mu / (mu + G~dtau) (one
// division per point; the three normal stresses share f), and the face pseudo-step as
// vdt * min(1 / mu_max) from one reciprocal per cell. Results agree with Iteration<3> to rounding
// (tests/models/stokes/stokes_parity_test.cpp). Offsets are 32-bit (the caller checks the size).

#include <optional>

#include "core/backend.hpp"
#include "models/staggered_stokes/kernels.hpp"
#include "models/staggered_stokes/tiled_ops.hpp"
#include "models/staggered_stokes/walls.hpp"
#include "models/stokes/tiled_shapes.hpp"

namespace staghorn::stokes {
namespace tiled {

// The default shape (kShapes[0]); the tile is (kTX - 2) x (kTY - 2) cells.
constexpr int kTX = kShapes[0].tx, kTY = kShapes[0].ty;
constexpr int kMinBlocks = kShapes[0].blocks;
constexpr int kChunk = kShapes[0].chunk;  // 0: march_planes_for_device()
using Planes = SharedPlanes<0>;   // the solid's shared planes only

// The default's march length on the current device (march_planes_for).
inline int march_planes_for_device() {
  const DeviceMemory m = device_memory();
  return march_planes_for(dram_bandwidth_per_sm(m.clock_khz, m.bus_bits, device_sms()));
}

// Raw pointers of one iteration (old state, material, new state), all with the same offsets.
struct Args {
  const real* __restrict__ Vx, * __restrict__ Vy, * __restrict__ Vz, * __restrict__ P, * __restrict__ Txx, * __restrict__ Tyy, * __restrict__ Tzz, * __restrict__ Txy, * __restrict__ Txz, * __restrict__ Tyz, * __restrict__ mu, * __restrict__ mu_max, * __restrict__ rho;
  real* __restrict__ oVx, * __restrict__ oVy, * __restrict__ oVz, * __restrict__ oP, * __restrict__ oTxx, * __restrict__ oTyy, * __restrict__ oTzz, * __restrict__ oTxy, * __restrict__ oTxz, * __restrict__ oTyz;
  int sy, sz;
  Params c;
  // The block's cells per axis, and whether its high side is a wall: the edges on such a wall
  // (outside every cell's low edges) are stored by the rim threads that compute them anyway
  // (what WallEdges does for the generic kernel).
  int n[3];
  bool wall_hi[3];
  XWallGhosts x_ghosts;  // the velocities' ghosts beyond the x walls, stored with their faces
};

inline Args args_of(const Pseudo<3>& ps, const State& out, const Int3& n, const bool wall_hi[3],
                    const XWallGhosts& x_ghosts) {
  const State& s = ps.s;
  Args a;
  a.Vx = s.Vx.p, a.Vy = s.Vy.p, a.Vz = s.Vz.p, a.P = s.P.p;
  a.Txx = s.Txx.p, a.Tyy = s.Tyy.p, a.Tzz = s.Tzz.p;
  a.Txy = s.Txy.p, a.Txz = s.Txz.p, a.Tyz = s.Tyz.p;
  a.mu = ps.m.mu.p, a.mu_max = ps.m.mu_max.p, a.rho = ps.m.rho.p;
  a.oVx = out.Vx.p, a.oVy = out.Vy.p, a.oVz = out.Vz.p, a.oP = out.P.p;
  a.oTxx = out.Txx.p, a.oTyy = out.Tyy.p, a.oTzz = out.Tzz.p;
  a.oTxy = out.Txy.p, a.oTxz = out.Txz.p, a.oTyz = out.Tyz.p;
  a.sy = static_cast<int>(s.P.sy), a.sz = static_cast<int>(s.P.sz);
  a.c = ps.c;
  for (int d = 0; d < 3; ++d) a.n[d] = n[d], a.wall_hi[d] = wall_hi[d];
  a.x_ghosts = x_ghosts;
  return a;
}

template <int TX, int TY, int MinBlocks>
__global__ void __launch_bounds__(TX* TY, MinBlocks)
    iterate(Region r, Args a, Chunks chunks, MarchOrder order) {
  constexpr int N = TX * TY;
  extern __shared__ real smem[];
  const Planes sp(smem, N);
  const Params& c = a.c;

  const stokes::tiled::TileColumn<TX, TY> col(r, chunks, order, a.n, a.wall_hi);
  const int tx = col.tx, ty = col.ty, t = col.t, i = col.i, j = col.j, kb = col.kb, ke = col.ke;
  const bool tile = col.tile, cell_needed = col.cell_needed, store_xy = col.store_xy;
  const int sz = a.sz;
  int o = col.first_offset(a.sy, sz);

  // tau_xz and tau_yz on the low edges of plane k + 1 (o: the column at plane k), from the
  // velocities and viscosities of planes k (registers, shared) and k + 1.
  auto edges_z = [&](real vx0, real vx1, real vy0, real vy1, real vz1, real txz_old, real tyz_old,
                     real& txz, real& tyz, int buffer) {
    const real* const sMu0 = sp.mu + (buffer ^ 1) * N;  // plane k
    const real* const sMu1 = sp.mu + buffer * N;        // plane k + 1
    if (tx >= 1) {
      const real e = edge_strain(vx1 - vx0, c.rdz, vz1 - sp.Vz1[t - 1], c.rdx);
      txz = edge_stress(c, txz_old, e, sMu1[t], sMu1[t - 1], sMu0[t], sMu0[t - 1]);
      sp.Txz[buffer * N + t] = txz;
    }
    if (ty >= 1) {
      const real e = edge_strain(vy1 - vy0, c.rdz, vz1 - sp.Vz1[t - TX], c.rdy);
      tyz = edge_stress(c, tyz_old, e, sMu1[t], sMu1[t - TX], sMu0[t], sMu0[t - TX]);
      sp.Tyz[buffer * N + t] = tyz;
    }
  };

  // Prologue, plane kb - 1: velocities and mu of planes kb - 1 and kb; the edges of plane kb
  // (owned: stored), and the own column's szz, 1 / mu_max, rho at kb - 1 for the z faces.
  real vx0 = col.load(a.Vx, o), vy0 = col.load(a.Vy, o), vz0 = col.load(a.Vz, o);
  const real mu0 = col.load(a.mu, o);
  real txz0 = 0, tyz0 = 0, szz_prev = 0, inv_prev = 0, rho_prev = 0;
  {
    const int q = o - sz;
    const real vxm = col.load(a.Vx, q), vym = col.load(a.Vy, q), mum = col.load(a.mu, q);
    sp.Vz1[t] = vz0;
    sp.mu[(kb & 1) * N + t] = mu0;
    sp.mu[((kb & 1) ^ 1) * N + t] = mum;
    sp.Vx[t] = vxm;
    sp.Vy[t] = vym;
    __syncthreads();
    edges_z(vxm, vx0, vym, vy0, vz0, col.load(a.Txz, o), col.load(a.Tyz, o), txz0, tyz0, kb & 1);
    col.store_z_edges(a, o, kb, txz0, tyz0);
    if (tile) {
      // szz at kb - 1 (own column): its divergence needs the x and y neighbours' velocities.
      const CellStrain e =
          cell_strain(c, sp.Vx[t + 1] - vxm, sp.Vy[t + TX] - vym, vz0 - col.load(a.Vz, q));
      const real mm = col.load(a.mu_max, q);
      const real g = c.gdt * mm;
      const real Pn = new_pressure(c, col.load(a.P, q), g, e.div);
      const real ezz = e.ezz - isotropic_rate(c, e);
      szz_prev = relaxed(col.load(a.Tzz, q), g, mum, ezz) - Pn;
      inv_prev = divide(real(1), mm);
      rho_prev = col.load(a.rho, q);
    }
    __syncthreads();
  }

  // This column's values that plane k reads: its own (and those of plane k + 1 that the edges of
  // k + 1 need). Loaded one plane ahead, so that memory works while the plane computes.
  struct Column {
    real P, Txx, Tyy, Tzz, Txy, mm, rho, vx1, vy1, vz1, mu1, Txz1, Tyz1;
  };
  auto column = [&](int q) {
    return Column{col.load(a.P, q),       col.load(a.Txx, q),     col.load(a.Tyy, q),
                  col.load(a.Tzz, q),     col.load(a.Txy, q),     col.load(a.mu_max, q),
                  col.load(a.rho, q),     col.load(a.Vx, q + sz), col.load(a.Vy, q + sz),
                  col.load(a.Vz, q + sz), col.load(a.mu, q + sz), col.load(a.Txz, q + sz),
                  col.load(a.Tyz, q + sz)};
  };
  Column next = column(o);
  for (int k = kb; k < ke; ++k, o += sz) {
    // Hidden from the optimiser: else it keeps 23 64-bit addresses stepped along z in registers
    // (46 of them) instead of forming each address from the parameter and o (one IMAD).
    asm volatile("" : "+r"(o));
    const int b0 = k & 1, b1 = b0 ^ 1;
    const Column now = next;
    if (k + 1 < ke) next = column(o + sz);
    const real P = now.P, Txx = now.Txx, Tyy = now.Tyy, Tzz = now.Tzz, Txy = now.Txy;
    const real mm = now.mm, rho = now.rho, vx1 = now.vx1, vy1 = now.vy1, vz1 = now.vz1;
    const real mu1 = now.mu1;
    const real inv = divide(real(1), mm);
    sp.Vx[t] = vx0;
    sp.Vy[t] = vy0;
    sp.Vz1[t] = vz1;
    sp.mu[b1 * N + t] = mu1;
    sp.inv[b0 * N + t] = inv;
    sp.density[b0 * N + t] = rho;
    __syncthreads();
    const real* const sMu0 = sp.mu + b0 * N;
    const real mu0 = sMu0[t];

    // P and the normal stresses of the cell (Pseudo::P_new, Txx_new ...).
    real szz = 0;
    if (cell_needed) {
      const CellStrain e = cell_strain(c, sp.Vx[t + 1] - vx0, sp.Vy[t + TX] - vy0, vz1 - vz0);
      const real g = c.gdt * mm;
      const real Pn = new_pressure(c, P, g, e.div);
      const real f = relax_factor(g, mu0);
      const real third = isotropic_rate(c, e);
      const real Txxn = relaxed_by(f, Txx, g, e.exx - third);
      const real Tyyn = relaxed_by(f, Tyy, g, e.eyy - third);
      const real Tzzn = relaxed_by(f, Tzz, g, e.ezz - third);
      sp.Sxx[t] = Txxn - Pn;
      sp.Syy[t] = Tyyn - Pn;
      szz = Tzzn - Pn;
      if (tile) a.oP[o] = Pn, a.oTxx[o] = Txxn, a.oTyy[o] = Tyyn, a.oTzz[o] = Tzzn;
    }
    // tau_xy on the low xy edge of the cell (Pseudo::Txy_new).
    if (tx >= 1 && ty >= 1) {
      const real e = edge_strain(vx0 - sp.Vx[t - TX], c.rdy, vy0 - sp.Vy[t - 1], c.rdx);
      const real txy = edge_stress(c, Txy, e, sMu0[t], sMu0[t - 1], sMu0[t - TX], sMu0[t - 1 - TX]);
      sp.Txy[t] = txy;
      if (store_xy) a.oTxy[o] = txy;
    }
    real txz1 = 0, tyz1 = 0;
    edges_z(vx0, vx1, vy0, vy1, vz1, now.Txz1, now.Tyz1, txz1, tyz1, b1);
    col.store_z_edges(a, o + sz, k + 1, txz1, tyz1);
    __syncthreads();

    // The tile's face velocities (momentum_x/y/z of kernels.hpp with the new stresses).
    if (tile) {
      const FaceStresses st{
          sp.Sxx, sp.Syy, sp.Txy, sp.Txz + b0 * N, sp.Tyz + b0 * N, szz, szz_prev, txz0,
          txz1,   tyz0,   tyz1};
      const bool wall[3] = {i == 0 && c.wall_lo[0], j == 0 && c.wall_lo[1], k == 0 && c.wall_lo[2]};
      real v[3] = {vx0, vy0, vz0};
      new_face_velocities<TX>(c, t, st, {sp.density + b0 * N, rho, rho_prev},
                              {sp.inv + b0 * N, inv, inv_prev}, wall, v);
      a.oVx[o] = v[0], a.oVy[o] = v[1], a.oVz[o] = v[2];
      if (a.x_ghosts.any()) {
        real* const out[3] = {a.oVx, a.oVy, a.oVz};
        a.x_ghosts.store(out, o, i, v);
      }
    }
    vx0 = vx1, vy0 = vy1, vz0 = vz1;
    txz0 = txz1, tyz0 = tyz1, szz_prev = szz, inv_prev = inv, rho_prev = rho;
  }
}

}  // namespace tiled

// Runs the tiled iteration over region r on `stream`: marches of `chunk` planes (0: the device's,
// march_planes_for_device), or the given ones (the same bits: stokes_parity_test).
template <int TX = tiled::kTX, int TY = tiled::kTY, int MinBlocks = tiled::kMinBlocks>
void launch_tiled(CUstream_st* stream, const Region& r, const tiled::Args& a,
                  int chunk = tiled::kChunk, const std::optional<Chunks>& marches = {}) {
  const Int3 e = r.extent();
  if (e.x <= 0 || e.y <= 0 || e.z <= 0) return;
  const std::size_t bytes = tiled::Planes::bytes(TX * TY);
  const auto kernel = tiled::iterate<TX, TY, MinBlocks>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(bytes));
  const Chunks chunks =
      marches ? *marches : Chunks::uniform(chunk > 0 ? chunk : tiled::march_planes_for_device());
  const MarchOrder order =
      tiled::march_order(r, TX, TY, chunks, resident_blocks(kernel, TX * TY, bytes));
  kernel<<<order.blocks(), dim3(TX, TY, 1), bytes, stream>>>(r, a, chunks, order);
  check_launch("stokes tiled iteration launch");
}

}  // namespace staghorn::stokes
