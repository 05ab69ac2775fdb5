#pragma once
// Device helpers of the tiled CUDA kernels of the staggered-Stokes module (the Stokes model's and
// the coupled hydro-mechanical variant's): the pointwise operators of kernels.hpp written for
// values held in registers and shared memory. Include only from code compiled by nvcc.

#include "core/fast_math.hpp"
#include "core/geometry.hpp"
#include "models/staggered_stokes/kernels.hpp"

namespace staghorn::stokes::tiled {

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

  __device__ TileColumn(const Region& r, int chunk, const int n[3], const bool wall_hi[3]) {
    tx = threadIdx.x, ty = threadIdx.y, t = tx + TX * ty;
    i = r.lo.x - 1 + blockIdx.x * (TX - 2) + tx;
    j = r.lo.y - 1 + blockIdx.y * (TY - 2) + ty;
    kb = r.lo.z + blockIdx.z * chunk, ke = min(kb + chunk, r.hi.z);
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

  // Stores the new tau_xz and tau_yz at offset `at` of plane `plane`: this block's planes, and
  // on a high z wall (wall_z, plane n_z) those of every column that owns an xy edge there.
  __device__ void store_z_edges(real* oTxz, real* oTyz, int at, int plane, int n_z, bool wall_z,
                                real txz, real tyz) const {
    if (plane < ke) {
      if (store_xz) oTxz[at] = txz;
      if (store_yz) oTyz[at] = tyz;
    } else if (plane == n_z && wall_z && store_xy) {
      oTxz[at] = txz;
      oTyz[at] = tyz;
    }
  }
};

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
  return (tau + 2 * g * e) * factor;
}
__device__ inline real relaxed(real tau, real g, real mu, real e) {
  return relaxed_by(relax_factor(g, mu), tau, g, e);
}

// The shear strain rate on an edge, (du/db + dw/da) / 2, from the differences du, dw across it
// and the inverse spacings (Kinematics::exy ...).
__device__ inline real edge_strain(real du, real rdb, real dw, real rda) {
  return real(0.5) * (du * rdb + dw * rda);
}
// The new shear stress on an edge from the viscosities a, b, cc, d of the four cells around it
// (Pseudo::Txy_new ...): G~dtau from their largest (at least the floor), the edge viscosity from
// their mean; e: the strain rate (plus the old stress's term, with_old_stress).
__device__ inline real edge_stress(const Params& c, real tau, real e, real a, real b, real cc,
                                   real d) {
  const real g = c.gdt * fmax(edge_max(a, b, cc, d), c.mu_floor);
  return relaxed(tau, g, edge_mu(c.harmonic, a, b, cc, d), e);
}

}  // namespace staghorn::stokes::tiled
