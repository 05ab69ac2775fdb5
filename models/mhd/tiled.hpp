#pragma once
// The MHD stage as a hand-tiled CUDA kernel (include only from code compiled by nvcc): each block
// stages one variable at a time, with its halo of order / 2 cells, through shared memory, and
// every thread gathers that variable's derivatives for its cell from the tile; then the pointwise
// equations and the 2N update, as the generic kernel (the same gather and rates functions, on
// tile strides instead of array strides). 3-D only.

#include "core/backend.hpp"
#include "core/geometry.hpp"
#include "models/mhd/kernels.hpp"

namespace staghorn::mhd {

constexpr int kTileX = 32, kTileY = 4, kTileZ = 2;  // one thread per cell

template <int Order, bool Entropy>
__global__ void __launch_bounds__(kTileX* kTileY* kTileZ) tiled_substep(Region r, StageArgs a) {
  constexpr int R = Order / 2;
  constexpr int TX = kTileX + 2 * R, TY = kTileY + 2 * R, TZ = kTileZ + 2 * R;
  constexpr int kThreads = kTileX * kTileY * kTileZ;
  constexpr int kVars = Entropy ? kMaxVars : kMaxVars - 1;
  __shared__ real tile[TX * TY * TZ];

  const int i0 = r.lo.x + blockIdx.x * kTileX, j0 = r.lo.y + blockIdx.y * kTileY,
            k0 = r.lo.z + blockIdx.z * kTileZ;
  const int i = i0 + threadIdx.x, j = j0 + threadIdx.y, k = k0 + threadIdx.z;
  const bool inside = i < r.hi.x && j < r.hi.y && k < r.hi.z;
  const int tid = threadIdx.x + kTileX * (threadIdx.y + kTileY * threadIdx.z);
  Axes tax = a.ax;
  tax.s[0] = 1, tax.s[1] = TX, tax.s[2] = TX * TY;
  const real* centre = tile + (threadIdx.x + R) + TX * ((threadIdx.y + R) + TY * (threadIdx.z + R));

  Local L;
  for (int v = 0; v < kVars; ++v) {
    const real* src = a.in.p[v];
    for (int t = tid; t < TX * TY * TZ; t += kThreads) {
      const int ti = t % TX, tj = (t / TX) % TY, tk = t / (TX * TY);
      const int gi = i0 - R + ti, gj = j0 - R + tj, gk = k0 - R + tk;
      // Cells past the region's halo are never read (and may lie outside the array).
      if (gi < r.hi.x + R && gj < r.hi.y + R && gk < r.hi.z + R)
        tile[t] = __ldg(src + a.shape.offset(gi, gj, gk));
    }
    __syncthreads();
    if (inside) gather<Order, Entropy>(v, centre, tax, L);
    __syncthreads();  // the tile is overwritten by the next variable
  }
  if (!inside) return;
  real rhs[kMaxVars];
  rates<Entropy>(L, a.ph, a.force.on ? a.force.at(i, j, k) : Vec3{}, a.kinematic, rhs);
  update<kVars>(a, a.shape.offset(i, j, k), rhs);
}

template <int Order, bool Entropy>
void launch_tiled(CUstream_st* stream, const Region& r, const StageArgs& a) {
  const Int3 e = r.extent();
  const dim3 block(kTileX, kTileY, kTileZ);
  const dim3 grid((e.x + kTileX - 1) / kTileX, (e.y + kTileY - 1) / kTileY,
                  (e.z + kTileZ - 1) / kTileZ);
  tiled_substep<Order, Entropy><<<grid, block, 0, stream>>>(r, a);
  check_launch("mhd tiled substep launch");
}

}  // namespace staghorn::mhd
