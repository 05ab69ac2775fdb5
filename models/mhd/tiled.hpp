#pragma once
// The MHD stage as a hand-tiled CUDA kernel (include only from code compiled by nvcc), 3-D, orders
// 2-6. A block of kTX x kTY threads owns an xy tile of columns and marches along z through part
// of the region (marches.hpp: long marches first, short ones last), one cell per thread and step:
//  - each vector component (u, A) keeps a ring of kRing planes of the tile and its halo in shared
//    memory: the 2R + 1 planes k - R .. k + R that the cell k needs (the mixed xz and yz
//    derivatives read off-axis points of the planes above and below) and the one being filled;
//  - the scalars (ln rho, s) need no off-axis points out of the plane k: one shared plane each
//    (double-buffered) and a register queue of their own column's values k - R .. k + R;
//  - planes arrive without the threads copying them: each vector row is one bulk copy handed to
//    the copy engine (core/bulk_copy.hpp), the scalar planes come by cp.async, and an mbarrier
//    per step counts both in (`full`); another counts the warps done with a step's shared loads
//    (`empty`). No block-wide barrier: a warp starts a step once its planes are in and at once
//    issues the next step's copies, which land behind the whole step.
// In-plane strides are compile-time constants and shared offsets 32-bit, so a neighbour costs one
// load with an immediate offset (the generic kernel computes a 64-bit address from run-time
// strides for each of its ~300 loads per cell).
// At order 6 with entropy: 227 KB of shared memory and 255 registers per thread, no spills, so one
// block (8 warps) per SM; 0.363 ns per cell and RK3 step on an H100 (docs/models/mhd.md).
// Along the axes held by one rank the kernel also writes the periodic images of the boundary cells
// into the halo (launch_tiled's wrap), which replaces the halo exchange along them.
// The derivatives are the generic kernel's operators (core/derivatives.hpp, operators.hpp) term
// for term and in the same order; the pointwise physics is the same rates() and the 2N update the
// same expression, so the result agrees with the generic kernel to rounding (docs/models/mhd.md).

#include <cuda_pipeline.h>

#include <cstdint>

#include "core/backend.hpp"
#include "core/bulk_copy.hpp"
#include "core/geometry.hpp"
#include "core/occupancy.hpp"
#include "models/mhd/kernels.hpp"
#include "models/mhd/marches.hpp"

namespace staghorn::mhd {
namespace tiled {

// Threads (columns) per block: 32 x 8, or 16 x 16 for regions narrower than 32 cells along x (the
// boundary shell's x slabs).
constexpr int kTX = 32, kTY = 8;
constexpr int kThinTX = 16, kThinTY = 16;
constexpr int kRing = 8;  // planes per vector component: 2R + 1 in use, 1 being filled

// Whether the first stage (alpha = 0) skips reading w. In single precision it reads it anyway
// (times alpha = 0; w is finite: zeroed at construction, then the values of the step before):
// with the predicated load nvcc's schedule is 12% slower there (H100, 256^3: 0.320 against
// 0.286 ns/cell/step), while in double the predicated load is the faster (0.529 against 0.535).
constexpr bool kSkipFirstRead = sizeof(real) == 8;

constexpr bool supports(int order) { return 2 * (order / 2) + 2 <= kRing; }

template <int Order, int TX = kTX, int TY = kTY>
struct Shape {
  static constexpr int R = Order / 2, H = TY + 2 * R;
  // Vector planes arrive as bulk runs, one per row: W cells hold the tile and its halo, TX + 2R,
  // widened to whole 16-byte units at both ends.
  static constexpr int W = bulk::floor_unit(TX + 2 * R + 2 * (bulk::kUnit - 1));
  static constexpr int kPlane = W * H;
  // Scalar planes arrive cell by cell: tight rows.
  static constexpr int WS = TX + 2 * R, kScalarPlane = WS * H;
  static constexpr int kThreads = TX * TY;
};

template <int Order, bool Entropy, int TX, int TY>
constexpr std::size_t shared_bytes() {
  using S = Shape<Order, TX, TY>;
  return (std::size_t(6 * kRing) * S::kPlane + (Entropy ? 2 : 1) * 2 * S::kScalarPlane) *
         sizeof(real);
}

// A vector component around the thread's cell: in-plane neighbours at compile-time offsets,
// planes k + dz at the ring offsets z[dz + R].
template <int R, int W>
struct RingAt {
  const real* c;  // the cell in ring slot 0
  const int* z;
  __device__ real operator()(int dx, int dy, int dz) const { return c[z[dz + R] + dx + dy * W]; }
};

// A scalar around the thread's cell: the plane k in shared memory, its column in registers.
template <int R, int W>
struct PlaneAt {
  const real* c;  // the cell in the current plane
  const real* q;  // the column k - R .. k + R
  __device__ real operator()(int dx, int dy, int dz) const {
    return dz == 0 ? c[dx + dy * W] : q[dz + R];
  }
};

// The difference weights with the grid spacing folded in, as core/derivatives.hpp folds them
// (the same products): w_m / dx_a (first derivatives), w_m / dx_a^2 (second) and
// w_m / (4 dx_a dx_b) (mixed; pairs xy, xz, yz: A + B - 1). Kernel parameters, so that the
// arithmetic takes them straight from the constant bank: a multiplication fewer per derivative.
template <int O>
struct Weights {
  real first[3][O / 2 + 1], second[3][O / 2 + 1], mixed[3][O / 2 + 1];
};

template <int O>
Weights<O> weights(const Axes& ax) {
  Weights<O> w{};
  for (int a = 0; a < 3; ++a)
    for (int m = 0; m <= O / 2; ++m) {
      w.first[a][m] = fd::first_weight<O>(m) * ax.r1[a];
      w.second[a][m] = fd::second_weight<O>(m) * (ax.r1[a] * ax.r1[a]);
    }
  for (int a = 0; a < 3; ++a)
    for (int b = a + 1; b < 3; ++b)
      for (int m = 0; m <= O / 2; ++m)
        w.mixed[a + b - 1][m] = fd::second_weight<O>(m) * (real(0.25) * (ax.r1[a] * ax.r1[b]));
  return w;
}

// d f / dx_A, d2 f / dx_A dx_B on an accessor; axes are compile-time (A, B: 0, 1, 2).
template <int O, int A, class F>
__device__ inline real d_da(const F& f, const Weights<O>& w) {
  constexpr int x = A == 0, y = A == 1, z = A == 2;
  real acc = 0;
#pragma unroll
  for (int m = 1; m <= O / 2; ++m)
    acc += w.first[A][m] * (f(m * x, m * y, m * z) - f(-m * x, -m * y, -m * z));
  return acc;
}

template <int O, int A, int B, class F>
__device__ inline real d2_dadb(const F& f, const Weights<O>& w) {
  if constexpr (A == B) {
    constexpr int x = A == 0, y = A == 1, z = A == 2;
    real acc = w.second[A][0] * f(0, 0, 0);
#pragma unroll
    for (int m = 1; m <= O / 2; ++m)
      acc += w.second[A][m] * (f(m * x, m * y, m * z) + f(-m * x, -m * y, -m * z));
    return acc;
  } else {
    // up = e_A + e_B, across = e_A - e_B
    constexpr int ux = (A == 0) + (B == 0), uy = (A == 1) + (B == 1), uz = (A == 2) + (B == 2);
    constexpr int cx = (A == 0) - (B == 0), cy = (A == 1) - (B == 1), cz = (A == 2) - (B == 2);
    real acc = 0;
#pragma unroll
    for (int m = 1; m <= O / 2; ++m)
      acc += w.mixed[A + B - 1][m] * ((f(m * ux, m * uy, m * uz) + f(-m * ux, -m * uy, -m * uz)) -
                                      (f(m * cx, m * cy, m * cz) + f(-m * cx, -m * cy, -m * cz)));
    return acc;
  }
}

template <int O, class F>
__device__ inline Vec3 gradient(const F& f, const Weights<O>& w) {
  return {d_da<O, 0>(f, w), d_da<O, 1>(f, w), d_da<O, 2>(f, w)};
}

template <int O, class F>
__device__ inline real laplacian(const F& f, const Weights<O>& w) {
  return d2_dadb<O, 0, 0>(f, w) + d2_dadb<O, 1, 1>(f, w) + d2_dadb<O, 2, 2>(f, w);
}

// add_component of operators.hpp for component C.
template <int O, int C, class F>
__device__ inline void add_component(const F& f, const Weights<O>& w, VectorDerivatives& d) {
  d.grad.m[C][0] = d_da<O, 0>(f, w);
  d.grad.m[C][1] = d_da<O, 1>(f, w);
  d.grad.m[C][2] = d_da<O, 2>(f, w);
  d.lap[C] = laplacian<O>(f, w);
  d.grad_div[0] += d2_dadb<O, 0, C>(f, w);
  d.grad_div[1] += d2_dadb<O, 1, C>(f, w);
  d.grad_div[2] += d2_dadb<O, 2, C>(f, w);
}

// gather() of kernels.hpp for the three components of u (V = kUx) or A (V = kAx).
template <int O, int V, class S>
__device__ inline void add_vector(const real* ring, int local, const int* z, const Weights<O>& w,
                                  Local& L, real* f0) {
  constexpr int P = S::kPlane;
  VectorDerivatives& d = V == kUx ? L.du : L.dA;
  const RingAt<S::R, S::W> fx{ring + ((V - kUx) * kRing) * P + local, z},
      fy{ring + ((V - kUx + 1) * kRing) * P + local, z},
      fz{ring + ((V - kUx + 2) * kRing) * P + local, z};
  f0[V] = fx(0, 0, 0), f0[V + 1] = fy(0, 0, 0), f0[V + 2] = fz(0, 0, 0);
  add_component<O, 0>(fx, w, d);
  add_component<O, 1>(fy, w, d);
  add_component<O, 2>(fz, w, d);
  if (V == kUx) L.u = {f0[V], f0[V + 1], f0[V + 2]};
}

// Shared memory of one block: the rings of u and A, the scalar planes, and the barriers. Step s
// of the z march uses barrier pair s & 1: `full` completes when the planes the step needs have
// landed, `empty` when every warp has done its shared loads of the step.
template <int Order, bool Entropy, int TX, int TY>
struct Smem {
  using S = Shape<Order, TX, TY>;
  real* ring;   // [6 components][kRing slots][plane]
  real* plane;  // [scalar][2 buffers][scalar plane]
  std::uint64_t* full;
  std::uint64_t* empty;
  __device__ real* slot(int c, int k) const {
    return ring + (c * kRing + (k & (kRing - 1))) * S::kPlane;
  }
  __device__ real* scalar(int s, int k) const {
    return plane + (2 * s + (k & 1)) * S::kScalarPlane;
  }
};

// Where a block's vector rows come from: row y of a plane is the run of cells [x0, x1) of row
// j0 - R + y, for the rows y < rows (rows past the region's halo are not needed and may lie
// outside the arrays); the tile's first halo cell sits at `shift` in the shared row.
struct Rows {
  int x0, x1, rows, shift;
};

// Values and derivatives of every variable at the thread's cell of plane k, from shared memory
// (vector cell at `local` in ring slot 0, scalar cell at `slocal`) and the scalar columns q.
template <int Order, bool Entropy, int TX, int TY>
__device__ inline void gather(const Smem<Order, Entropy, TX, TY>& sm, int k, int local, int slocal,
                              const real (*q)[Order + 1], const Weights<Order>& wt, Local& L,
                              real* f0) {
  using S = Shape<Order, TX, TY>;
  constexpr int R = S::R;
  int z[2 * R + 1];
#pragma unroll
  for (int m = -R; m <= R; ++m) z[m + R] = ((k + m) & (kRing - 1)) * S::kPlane;
  const PlaneAt<R, S::WS> lnrho{sm.scalar(0, k) + slocal, q[0]};
  L.lnrho = f0[kLnrho] = lnrho(0, 0, 0);
  L.glnrho = gradient<Order>(lnrho, wt);
  if constexpr (Entropy) L.lap_lnrho = laplacian<Order>(lnrho, wt);
  add_vector<Order, kUx, S>(sm.ring, local, z, wt, L, f0);
  add_vector<Order, kAx, S>(sm.ring, local, z, wt, L, f0);
  if constexpr (Entropy) {
    const PlaneAt<R, S::WS> ss{sm.scalar(1, k) + slocal, q[1]};
    L.ss = f0[kSs] = ss(0, 0, 0);
    L.gss = gradient<Order>(ss, wt);
    L.lap_ss = laplacian<Order>(ss, wt);
  }
}

template <int Order, bool Entropy, int TX, int TY>
__global__ void __launch_bounds__(TX* TY, 1)
    substep(Region r, StageArgs a, Weights<Order> wt, Ratios ratios, Chunks chunks, Int3 wrap) {
  using S = Shape<Order, TX, TY>;
  constexpr int R = S::R, W = S::W, WS = S::WS, H = S::H, N = S::kThreads;
  constexpr int kScalars = Entropy ? 2 : 1;
  constexpr int kVars = Entropy ? kMaxVars : kMaxVars - 1;
  // Scalar plane cells each thread copies: tid + l N, l < kRounds.
  constexpr int kRounds = (S::kScalarPlane + N - 1) / N;
  extern __shared__ __align__(128) real smem[];
  __shared__ std::uint64_t bars[4];
  const Smem<Order, Entropy, TX, TY> sm{smem, smem + 6 * kRing * S::kPlane, bars, bars + 2};

  const int tid = threadIdx.x + TX * threadIdx.y, lane = tid % 32;
  const int i0 = r.lo.x + blockIdx.x * TX, j0 = r.lo.y + blockIdx.y * TY;
  const int kb = r.lo.z + chunks.begin(blockIdx.z);
  const int ke = min(kb + chunks.length(blockIdx.z), r.hi.z);
  const int i = i0 + threadIdx.x, j = j0 + threadIdx.y;
  const bool inside = i < r.hi.x && j < r.hi.y;
  const std::ptrdiff_t sz = a.shape.sz;
  const int sy = static_cast<int>(a.shape.sy);
  const Rows rows{bulk::floor_unit(i0 - R),
                  min(bulk::ceil_unit(i0 + TX + R), bulk::ceil_unit(r.hi.x + R)),
                  min(H, r.hi.y + 2 * R - j0), i0 - R - bulk::floor_unit(i0 - R)};
  const int local = rows.shift + (threadIdx.x + R) + W * (threadIdx.y + R);
  const int slocal = (threadIdx.x + R) + WS * (threadIdx.y + R);
  const std::uint32_t plane_bytes = rows.rows * (rows.x1 - rows.x0) * sizeof(real);
  auto array = [&](int c) { return a.in.p[c < 6 ? kUx + c : (c == 6 ? kLnrho : kSs)]; };

  // Vector planes: row y of component c goes to the copy engine from lane n % kPerWarp of warp
  // n / kPerWarp (n = c H + y), plane after plane; thread 0 announces the bytes. Four copying
  // warps where 32 lanes each suffice (32 x 8 blocks: 84 rows, 21 per warp), one per scheduler,
  // so that no scheduler carries more than a quarter of the copy loops' instructions.
  constexpr int kCopyWarps = (6 * H + 31) / 32 > 4 ? (6 * H + 31) / 32 : 4;
  constexpr int kPerWarp = (6 * H + kCopyWarps - 1) / kCopyWarps;
  static_assert(kCopyWarps <= N / 32, "a lane per vector row");
  const int row_n = (tid / 32) * kPerWarp + lane;
  const int row_c = min(row_n / H, 5), row_y = row_n - row_c * H;
  const bool copies_row = lane < kPerWarp && row_n < 6 * H && row_y < rows.rows;
  const real* const row_from = array(row_c) + rows.x0 + (j0 - R + row_y) * sy;
  const int row_to = row_c * kRing * S::kPlane + row_y * W;
  auto copy_vectors = [&](int k, int planes, std::uint64_t* bar) {
    if (tid == 0) bulk::arrive_expecting(bar, 6 * planes * plane_bytes);
    if (copies_row)
      for (int kv = k; kv < k + planes; ++kv)
        bulk::copy(sm.ring + row_to + (kv & (kRing - 1)) * S::kPlane, row_from + kv * sz,
                   rows.x1 - rows.x0, bar);
  };
  // Scalar planes: each thread copies its cells and reports to the barrier when they are in.
  int src[kRounds];
  bool needed[kRounds];
#pragma unroll
  for (int l = 0; l < kRounds; ++l) {
    const int t = tid + l * N, gi = i0 - R + t % WS, gj = j0 - R + t / WS;
    src[l] = gi + gj * sy;
    needed[l] = t < S::kScalarPlane && gi < r.hi.x + R && gj < r.hi.y + R;
  }
  auto copy_scalars = [&](int ks, std::uint64_t* bar) {
#pragma unroll
    for (int s = 0; s < kScalars; ++s)
#pragma unroll
      for (int l = 0; l < kRounds; ++l)
        if (needed[l])
          __pipeline_memcpy_async(sm.scalar(s, ks) + tid + l * N, array(6 + s) + ks * sz + src[l],
                                  sizeof(real));
    bulk::arrive_on_copies(bar);
  };

  if (tid == 0) {
    for (int b = 0; b < 2; ++b) bulk::init(&sm.full[b], 1 + N), bulk::init(&sm.empty[b], N / 32);
    bulk::fence_init();
  }
  __syncthreads();  // the barriers are initialised
  // The first step's planes: kb - R .. kb + R of u and A, kb of the scalars.
  copy_vectors(kb - R, 2 * R + 1, &sm.full[0]);
  copy_scalars(kb, &sm.full[0]);
  std::ptrdiff_t o = a.shape.offset(i, j, kb);
  real q[kScalars][2 * R + 1];  // scalar columns k - R .. k + R
#pragma unroll
  for (int s = 0; s < kScalars; ++s)
#pragma unroll
    for (int m = -R; m <= R; ++m) q[s][m + R] = inside ? array(6 + s)[o + m * sz] : 0;

  // The next step's planes go where planes k - R - 1 (ring) and k - 1 (scalars) were, which
  // the step before read last: once every warp is past it. Issued as soon as that holds, before
  // the warp waits for this step's own planes, they land while the whole step computes (issued
  // after its shared loads, they would have only the pointwise physics to land behind:
  // docs/journal/mhd.md).
  auto issue_next = [&](int step, int k, bool more) {
    if (!more) return;
    if (step > 0) bulk::wait(&sm.empty[(step - 1) & 1], ((step - 1) >> 1) & 1);
    std::uint64_t* const bar = &sm.full[(step + 1) & 1];
    copy_vectors(k + R + 1, 1, bar);
    copy_scalars(k + 1, bar);
  };
  for (int k = kb; k < ke; ++k, o += sz) {
    const int step = k - kb;
    const bool more = k + 1 < ke;
    real next[kScalars], w[kVars];
    Local L;
    real f0[kMaxVars];
    if (inside) {
#pragma unroll
      for (int s = 0; s < kScalars; ++s) next[s] = more ? array(6 + s)[o + (R + 1) * sz] : 0;
        // The RK registers early: loaded after the stores below, each would wait for memory in
        // turn (the compiler cannot know that w and out do not alias).
#pragma unroll
      for (int v = 0; v < kVars; ++v) w[v] = kSkipFirstRead && !a.read_w ? 0 : a.w.p[v][o];
    }
    issue_next(step, k, more);
    bulk::wait(&sm.full[step & 1], (step >> 1) & 1);
    if (inside) gather(sm, k, local, slocal, q, wt, L, f0);
    __syncwarp();
    if (lane == 0) bulk::arrive(&sm.empty[step & 1]);  // this warp's shared loads are done
    if (inside) {
      real rhs[kMaxVars];
      rates<Entropy>(L, a.ph, ratios, a.force.on ? a.force.at(i, j, k) : Vec3{}, a.kinematic, rhs);
      real next_f[kVars];
#pragma unroll
      for (int v = 0; v < kVars; ++v) {  // update() of kernels.hpp, f read from shared memory
        const real wv = a.alpha * w[v] + a.dt * rhs[v];
        if (a.write_w) a.w.p[v][o] = wv;
        a.out.p[v][o] = next_f[v] = f0[v] + a.beta * wv;
      }
      write_images<R, kVars>(a, o, i, j, k, wrap, next_f);
      if (more) {
#pragma unroll
        for (int s = 0; s < kScalars; ++s) {
#pragma unroll
          for (int m = 0; m < 2 * R; ++m) q[s][m] = q[s][m + 1];
          q[s][2 * R] = next[s];
        }
      }
    }
  }
}

}  // namespace tiled

namespace tiled {
// The marches for region r and TX x TY blocks on the current device (plan_marches).
inline Chunks chunks_for(const Region& r, int TX, int TY) {
  const int sms = device_sms();
  const Int3 e = r.extent();
  const long long columns = static_cast<long long>((e.x + TX - 1) / TX) * ((e.y + TY - 1) / TY);
  return plan_marches(columns, e.z, sms);
}

template <int Order, bool Entropy, int TX, int TY>
void launch(CUstream_st* stream, const Region& r, const StageArgs& a, int chunk, Int3 wrap) {
  const Int3 e = r.extent();
  const Chunks chunks = chunk == kAutoChunk ? chunks_for(r, TX, TY) : Chunks::uniform(chunk);
  constexpr std::size_t bytes = shared_bytes<Order, Entropy, TX, TY>();
  cudaFuncSetAttribute(substep<Order, Entropy, TX, TY>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(bytes));
  const dim3 grid((e.x + TX - 1) / TX, (e.y + TY - 1) / TY, chunks.blocks(e.z));
  substep<Order, Entropy, TX, TY><<<grid, dim3(TX, TY, 1), bytes, stream>>>(
      r, a, weights<Order>(a.ax), ratios_of(a.ph), chunks, wrap);
  check_launch("mhd tiled substep launch");
}
}  // namespace tiled

// One stage on region r with the tiled kernel (orders 2-6, 3-D; the arrays' rows 16-byte aligned
// as Layout makes them). wrap: the interior extent along each axis whose halo is the block's own
// opposite side (a periodic axis held by one rank, block at least 2 halos thick), 0 elsewhere;
// the kernel then also writes each new value into the halo cells that are its periodic images,
// so that no exchange is needed along those axes.
template <int Order, bool Entropy>
void launch_tiled(CUstream_st* stream, const Region& r, const StageArgs& a,
                  int chunk = tiled::kAutoChunk, Int3 wrap = {0, 0, 0}) {
  static_assert(tiled::supports(Order), "the tiled kernel's ring holds orders 2-6");
  if (r.extent().x < tiled::kTX && r.extent().y >= tiled::kTX)
    tiled::launch<Order, Entropy, tiled::kThinTX, tiled::kThinTY>(stream, r, a, chunk, wrap);
  else
    tiled::launch<Order, Entropy, tiled::kTX, tiled::kTY>(stream, r, a, chunk, wrap);
}

}  // namespace staghorn::mhd
