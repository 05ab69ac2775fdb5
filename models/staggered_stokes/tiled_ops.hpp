#pragma once
// Device helpers of the tiled CUDA kernels of the staggered-Stokes module (the Stokes model's and
// the coupled hydro-mechanical variant's): the pointwise operators of kernels.hpp written for
// values held in registers and shared memory. Include only from code compiled by nvcc.

#include <type_traits>

#include "core/fast_math.hpp"
#include "core/geometry.hpp"
#include "core/marches.hpp"
#include "core/occupancy.hpp"
#include "models/staggered_stokes/kernels.hpp"

namespace staghorn::stokes::tiled {

// The shared memory of a tiled kernel, as planes of one value per thread of a block of n
// threads. Planes written while the previous plane's may still be read come in pairs, by the
// parity of the plane k (k & 1). `Own` planes of a model (the coupled variant's fluid pressure and
// permeability) sit between the solid's inputs and its new stresses.
template <int Own>
struct SharedPlanes {
  static constexpr int kCount = 16 + Own;
  static constexpr std::size_t bytes(int n) { return std::size_t(kCount) * n * sizeof(real); }
  real *Vx, *Vy;    // the velocities at k
  real* Vz1;        // Vz at k + 1
  real* mu;         // mu at k, k + 1 (a pair)
  real* inv;        // 1 / mu_max at k, k - 1 (a pair)
  real* density;    // the buoyancy's density (rho, or the porosity excess) at k, k - 1 (a pair)
  real* own;        // the model's own Own planes
  real *Sxx, *Syy;  // the new total normal stresses tau_xx - p, tau_yy - p at k
  real* Txy;        // the new tau_xy at k
  real *Txz, *Tyz;  // the new tau_xz, tau_yz at k, k + 1 (pairs)
  __device__ SharedPlanes(real* smem, int n)
      : Vx(smem),
        Vy(smem + n),
        Vz1(smem + 2 * n),
        mu(smem + 3 * n),
        inv(smem + 5 * n),
        density(smem + 7 * n),
        own(smem + 9 * n),
        Sxx(own + Own * n),
        Syy(Sxx + n),
        Txy(Sxx + 2 * n),
        Txz(Sxx + 3 * n),
        Tyz(Sxx + 5 * n) {}
};

// The places of a tiled kernel's blocks over region r: tiles of (TX - 2) x (TY - 2) cells, marches
// `chunks`, in groups of as many tiles as the device holds blocks (`resident`; MarchOrder). Its
// grid: order.blocks().
inline MarchOrder march_order(const Region& r, int TX, int TY, const Chunks& chunks,
                              long long resident) {
  const Int3 e = r.extent();
  const int tiles_x = (e.x + TX - 3) / (TX - 2), tiles_y = (e.y + TY - 3) / (TY - 2);
  const int tiles = tiles_x * tiles_y;
  return {tiles_x, tiles, chunks.blocks(e.z),
          static_cast<int>(resident < tiles ? resident : tiles)};
}

// Where a thread of a tiled kernel stands: a block of TX x TY threads covers an xy tile of
// (TX - 2) x (TY - 2) cells plus a one-cell rim (low and high), and marches along z through the
// planes [kb, ke) of region r. n, wall_hi: the block's cells per axis and whether its high side
// is a wall.
template <int TX, int TY>
struct TileColumn {
  int tx, ty, t;     // thread in the block, and its index in a shared plane
  int i, j;          // its column
  int kb, ke;        // the planes it marches through
  bool active;       // a column inside the arrays (past the high rim: never needed)
  bool tile;         // a cell of the tile: its values are stored
  bool cell_needed;  // its own cell or a tile's low neighbour: the cell's new p and stresses
  // On a high wall (i = n or j = n): the edges WallEdges<3> stores for the generic kernel, from
  // the rows (columns) of this tile and the wall's corner: tau_xy and tau_xz on the x wall,
  // tau_xy and tau_yz on the y wall; tau_xz and tau_yz on the z wall (k = n) for every column.
  bool store_xy, store_xz, store_yz;

  __device__ TileColumn(const Region& r, const Chunks& chunks, const MarchOrder& order,
                        const int n[3], const bool wall_hi[3]) {
    tx = threadIdx.x, ty = threadIdx.y, t = tx + TX * ty;
    const MarchOrder::Place at = order.place(blockIdx.x);
    i = r.lo.x - 1 + at.x * (TX - 2) + tx;
    j = r.lo.y - 1 + at.y * (TY - 2) + ty;
    kb = r.lo.z + chunks.begin(at.layer), ke = min(kb + chunks.length(at.layer), r.hi.z);
    active = i <= r.hi.x && j <= r.hi.y;
    const bool in_x = tx >= 1 && tx <= TX - 2 && i < r.hi.x,
               in_y = ty >= 1 && ty <= TY - 2 && j < r.hi.y;
    tile = in_x && in_y;
    cell_needed = tx <= TX - 2 && ty <= TY - 2;
    const bool x_wall = wall_hi[0] && i == n[0] && i == r.hi.x,
               y_wall = wall_hi[1] && j == n[1] && j == r.hi.y;
    const bool own_x = in_x || x_wall, own_y = in_y || y_wall;
    store_xy = own_x && own_y;
    store_xz = tile || (x_wall && own_y);
    store_yz = tile || (y_wall && own_x);
  }

  // The column's offset at its first plane in arrays of strides sy, sz.
  __device__ int first_offset(int sy, int sz) const { return i + j * sy + kb * sz; }
  // The value of an array at offset `at`; 0 in a column past the arrays.
  __device__ real load(const real* p, int at) const { return active ? p[at] : real(0); }

  // Stores the new tau_xz and tau_yz at offset `at` of plane `plane` into the kernel's arguments
  // (a.oTxz, a.oTyz, the block's cells a.n and high walls a.wall_hi): this block's planes, and on
  // a high z wall (plane n_z) those of every column that owns an xy edge there.
  template <class KernelArgs>
  __device__ void store_z_edges(const KernelArgs& a, int at, int plane, real txz, real tyz) const {
    if (plane < ke) {
      if (store_xz) a.oTxz[at] = txz;
      if (store_yz) a.oTyz[at] = tyz;
    } else if (plane == a.n[2] && a.wall_hi[2] && store_xy) {
      a.oTxz[at] = txz;
      a.oTyz[at] = tyz;
    }
  }
};

// a b rounded on its own: never contracted into a sum it feeds. nvcc contracts a product and a sum
// into one fused operation where it likes (e.g. where the product has no other use), so two
// inlined copies of one formula may round differently. A march's first plane computes the plane
// below it in a prologue of its own (tau_zz without tau_xx, tau_yy), so the operators it shares
// with the march fix their roundings (products rounded, fused multiply-adds written out): a
// march's bits then do not depend on where it begins (stokes_parity_test).
__device__ inline real rounded_product(real a, real b) {
  if constexpr (std::is_same_v<real, double>)
    return __dmul_rn(a, b);
  else
    return __fmul_rn(a, b);
}

// Edge viscosity from the four cells around (av4/hav4 of core/stencil.hpp, same order), and the
// largest of them (max4).
__device__ inline real edge_mu(bool harmonic, real a, real b, real c, real d) {
  if (harmonic) return real(4) / ((real(1) / a + real(1) / b) + (real(1) / c + real(1) / d));
  return real(0.25) * ((a + b) + (c + d));
}
__device__ inline real edge_max(real a, real b, real c, real d) {
  const real x = a > b ? a : b, y = c > d ? c : d;
  return x > y ? x : y;
}
// relax() of kernels.hpp with one division: (tau + 2 g e) / (1 + g / mu) = (tau + 2 g e) f with
// f = mu / (mu + g), which the normal stresses of a cell share.
__device__ inline real relax_factor(real g, real mu) { return divide(mu, mu + g); }
__device__ inline real relaxed_by(real factor, real tau, real g, real e) {
  return rounded_product(fma(2 * g, e, tau), factor);
}
__device__ inline real relaxed(real tau, real g, real mu, real e) {
  return relaxed_by(relax_factor(g, mu), tau, g, e);
}

// The shear strain rate on an edge, (du/db + dw/da) / 2, from the differences du, dw across it
// and the inverse spacings (Kinematics::exy ...).
__device__ inline real edge_strain(real du, real rdb, real dw, real rda) {
  return real(0.5) * fma(du, rdb, rounded_product(dw, rda));
}
// The new shear stress on an edge from the viscosities a, b, cc, d of the four cells around it
// (Pseudo::Txy_new ...): G~dtau from their largest (at least the floor), the edge viscosity from
// their mean; e: the strain rate (plus the old stress's term, with_old_stress).
__device__ inline real edge_stress(const Params& c, real tau, real e, real a, real b, real cc,
                                   real d) {
  const real g = c.gdt * fmax(edge_max(a, b, cc, d), c.mu_floor);
  return relaxed(tau, g, edge_mu(c.harmonic, a, b, cc, d), e);
}

// The normal strain rates of a cell and their sum, the divergence (Kinematics of kernels.hpp, in
// the same order), from the velocity differences across it (rounded products, as above).
struct CellStrain {
  real exx, eyy, ezz, div;
};
__device__ inline CellStrain cell_strain(const Params& c, real dvx, real dvy, real dvz) {
  CellStrain s{rounded_product(dvx, c.rdx), rounded_product(dvy, c.rdy),
               rounded_product(dvz, c.rdz), 0};
  s.div = s.exx;
  s.div += s.eyy;
  s.div += s.ezz;
  return s;
}
// The new pressure of a cell (Pseudo::P_new): P - r G~dtau div v, G~dtau = g.
__device__ inline real new_pressure(const Params& c, real P, real g, real div) {
  return fma(-(c.r * g), div, P);
}
// What the normal strain rates lose to be deviatoric (Kinematics::isotropic): div / 3, or
// nothing where the stresses relax towards the whole rate (Params::deviatoric = 0).
__device__ inline real isotropic_rate(const Params& c, const CellStrain& e) {
  return c.deviatoric ? divide(e.div, real(3)) : real(0);
}

// What the momentum balance of a tile cell's three low faces reads at plane k: the new stresses
// (shared planes of tau_xx - p, tau_yy - p, tau_xy and the z edges of plane k; the column's own
// tau_zz - p at k and below, and its z edges at k and k + 1), and cell fields as a shared plane
// with the column's value at k and below: the buoyancy's density and 1 / mu_max.
struct FaceStresses {
  const real *sxx, *syy, *txy, *txz, *tyz;
  real szz, szz_below, txz0, txz1, tyz0, tyz1;
};
struct CellPlane {
  const real* plane;
  real here, below;
};
// The new velocities v of the low faces (momentum_x/y/z of kernels.hpp with the new stresses, the
// face pseudo-step vdt / max(mu_max) as vdt * min(1 / mu_max)); a face on a low wall keeps its v.
template <int TX>
__device__ inline void new_face_velocities(const Params& c, int t, const FaceStresses& s,
                                           const CellPlane& density, const CellPlane& inv,
                                           const bool wall[3], real v[3]) {
  const real* const d = density.plane;
  const real Rx = momentum_x_of<3>(c, [&](int term, int high) {
    switch (term) {
      case kNormal:
        return s.sxx[t - 1 + high];
      case kShear1:
        return s.txy[t + high * TX];
      case kShear2:
        return high ? s.txz1 : s.txz0;
      default:
        return high ? density.here : d[t - 1];
    }
  });
  const real Ry = momentum_y_of<3>(c, [&](int term, int high) {
    switch (term) {
      case kNormal:
        return s.syy[t - TX + high * TX];
      case kShear1:
        return s.txy[t + high];
      case kShear2:
        return high ? s.tyz1 : s.tyz0;
      default:
        return high ? density.here : d[t - TX];
    }
  });
  const real Rz = momentum_z_of(c, [&](int term, int high) {
    switch (term) {
      case kNormal:
        return high ? s.szz : s.szz_below;
      case kShear1:
        return s.txz[t + high];
      case kShear2:
        return s.tyz[t + high * TX];
      default:
        return high ? density.here : density.below;
    }
  });
  v[0] += wall[0] ? 0 : c.vdt * fmin(inv.here, inv.plane[t - 1]) * Rx;
  v[1] += wall[1] ? 0 : c.vdt * fmin(inv.here, inv.plane[t - TX]) * Ry;
  v[2] += wall[2] ? 0 : c.vdt * fmin(inv.here, inv.below) * Rz;
}

}  // namespace staghorn::stokes::tiled
