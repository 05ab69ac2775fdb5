#pragma once
// Single-source parallel loops: a kernel is a functor `void operator()(int i, int j, int k) const`
// marked SH_HD. The same source runs on the `cpu` backend (OpenMP) and, in translation units
// compiled by nvcc, on the `cuda` backend.

#include <omp.h>

#include <algorithm>
#include <array>
#include <limits>
#include <type_traits>
#include <vector>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/geometry.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#endif

namespace staghorn {

// Reduction operators. MaxOp propagates NaN so that a broken state can never look converged.
// Templates so that the CPU path can accumulate in double when real is float.
struct MaxOp {
  template <class T>
  SH_HD T operator()(T a, T b) const {
    return (a != a || a > b) ? a : b;
  }
  static constexpr real identity() { return -std::numeric_limits<real>::infinity(); }
};
struct SumOp {
  template <class T>
  SH_HD T operator()(T a, T b) const {
    return a + b;
  }
  static constexpr real identity() { return 0.0; }
};

#if defined(__CUDACC__)
namespace detail {

// The thread's cell of the region (one per thread, blocks tiling the region), if inside it.
template <class F>
__device__ inline void for_this_thread(const Region& r, const F& f) {
  const int i = r.lo.x + blockIdx.x * blockDim.x + threadIdx.x;
  const int j = r.lo.y + blockIdx.y * blockDim.y + threadIdx.y;
  const int k = r.lo.z + blockIdx.z * blockDim.z + threadIdx.z;
  if (i < r.hi.x && j < r.hi.y && k < r.hi.z) f(i, j, k);
}

template <class F>
__global__ void for_each_kernel(Region r, F f) {
  for_this_thread(r, f);
}

// Threads per block: 256, or what the functor asks for with `static constexpr int kThreads`
// (measured per kernel: e.g. fewer for kernels with many registers).
template <class F, class = void>
struct threads_of {
  static constexpr unsigned value = 256;
};
template <class F>
struct threads_of<F, std::void_t<decltype(F::kThreads)>> {
  static constexpr unsigned value = F::kThreads;
};

// 32 threads along x unless the region is thinner (boundary slabs): then the threads go to the
// other axes instead of idling.
inline dim3 block_for(const Int3& e, unsigned threads) {
  unsigned bx = 32;
  while (bx > 1 && static_cast<int>(bx / 2) >= e.x) bx /= 2;
  unsigned by = threads / bx;
  while (by > 1 && static_cast<int>(by / 2) >= e.y) by /= 2;
  return dim3(bx, by, threads / bx / by);
}

// Threads a functor asks to keep resident per SM (`static constexpr int kResidentThreads`): the
// kernel is compiled for that many (__launch_bounds__), i.e. within 65536 / kResidentThreads
// registers per thread. 0 (the default): no bound.
template <class F, class = void>
struct resident_threads_of {
  static constexpr unsigned value = 0;
};
template <class F>
struct resident_threads_of<F, std::void_t<decltype(F::kResidentThreads)>> {
  static constexpr unsigned value = F::kResidentThreads;
};

template <class F, unsigned Threads, unsigned MinBlocks>
__global__ void __launch_bounds__(Threads, MinBlocks) for_each_bounded_kernel(Region r, F f) {
  for_this_thread(r, f);
}

template <class F>
void launch(CUstream_st* stream, const Region& r, const F& f) {
  const Int3 e = r.extent();
  constexpr unsigned threads = threads_of<F>::value, resident = resident_threads_of<F>::value;
  const dim3 block = block_for(e, threads);
  const dim3 grid((e.x + block.x - 1) / block.x, (e.y + block.y - 1) / block.y,
                  (e.z + block.z - 1) / block.z);
  if constexpr (resident >= threads)
    for_each_bounded_kernel<F, threads, resident / threads><<<grid, block, 0, stream>>>(r, f);
  else
    for_each_kernel<<<grid, block, 0, stream>>>(r, f);
  check_launch("for_each kernel launch");
}

// One thread per (i, j) column marches `chunk` cells along z, carrying the functor's State (e.g.
// a register queue of the values at k-1 and k) from one cell to the next.
template <class F>
__global__ void march_kernel(Region r, int chunk, F f) {
  const int i = r.lo.x + blockIdx.x * blockDim.x + threadIdx.x;
  const int j = r.lo.y + blockIdx.y * blockDim.y + threadIdx.y;
  const int k0 = r.lo.z + blockIdx.z * chunk;
  if (i >= r.hi.x || j >= r.hi.y) return;
  const int k1 = min(k0 + chunk, r.hi.z);
  auto state = f.start(i, j, k0);
  for (int k = k0; k < k1; ++k) f(state, i, j, k);
}

template <class F>
void launch_march(CUstream_st* stream, const Region& r, int chunk, const F& f) {
  const Int3 e = r.extent();
  const dim3 block(32, 8, 1);
  const dim3 grid((e.x + block.x - 1) / block.x, (e.y + block.y - 1) / block.y,
                  (e.z + chunk - 1) / chunk);
  march_kernel<<<grid, block, 0, stream>>>(r, chunk, f);
  check_launch("for_each_marching kernel launch");
}

constexpr int kReduceX = 32, kReduceY = 8;
// The blocks a reduction's first pass aims at (many times what the SMs hold at once): each walks
// planes k = lo + blockIdx.z, + gridDim.z, ..., so few partials remain for the second pass.
constexpr long long kReduceBlocks = 4096;
constexpr int kFinishThreads = 256;

// A first pass's grid over a region: 32 x 8 columns per block, the planes shared out as above.
inline dim3 reduce_grid(const Region& r) {
  const Int3 e = r.extent();
  const long long columns = static_cast<long long>((e.x + kReduceX - 1) / kReduceX) *
                            ((e.y + kReduceY - 1) / kReduceY);
  const long long planes = std::max(1LL, std::min<long long>(e.z, kReduceBlocks / columns));
  return dim3((e.x + kReduceX - 1) / kReduceX, (e.y + kReduceY - 1) / kReduceY,
              static_cast<unsigned>(planes));
}

// Device scratch of a two-pass reduction: `partials` reals, then N doubles (the results) on an
// 8-byte boundary.
template <int N>
struct ReduceScratch {
  real* partial;
  double* out;
  static ReduceScratch of(const Exec& ex, std::size_t partials) {
    const std::size_t out_reals = (2 * N * sizeof(double)) / sizeof(real);
    real* scratch = ex.scratch(partials + out_reals + 2);
    const std::size_t out_byte = ((partials * sizeof(real) + 7) / 8) * 8;
    return {scratch, reinterpret_cast<double*>(reinterpret_cast<char*>(scratch) + out_byte)};
  }
};

// First pass of a reduction: one partial result per block, in block order.
template <class Op, class F>
__global__ void reduce_kernel(Region r, Op op, F f, real* partial) {
  const int i = r.lo.x + blockIdx.x * kReduceX + threadIdx.x;
  const int j = r.lo.y + blockIdx.y * kReduceY + threadIdx.y;
  real v = Op::identity();
  if (i < r.hi.x && j < r.hi.y)
    for (int k = r.lo.z + blockIdx.z; k < r.hi.z; k += gridDim.z) v = op(v, f(i, j, k));
  using Block = cub::BlockReduce<real, kReduceX, cub::BLOCK_REDUCE_WARP_REDUCTIONS, kReduceY>;
  __shared__ typename Block::TempStorage tmp;
  const real b = Block(tmp).Reduce(v, op);
  if (threadIdx.x == 0 && threadIdx.y == 0)
    partial[blockIdx.x +
            gridDim.x * (blockIdx.y + static_cast<long long>(gridDim.y) * blockIdx.z)] = b;
}

// Second pass, one block: thread t combines blocks t, t + 256, ... in double, then the block's
// tree; N results from block-major partials (partial[block * N + n]).
template <int N, class Op>
__global__ void finish_kernel(long long blocks, Op op, const real* partial, double* out) {
  using Block = cub::BlockReduce<double, kFinishThreads>;
  __shared__ typename Block::TempStorage tmp;
  for (int n = 0; n < N; ++n) {
    double acc = Op::identity();
    for (long long b = threadIdx.x; b < blocks; b += kFinishThreads)
      acc = op(acc, static_cast<double>(partial[b * N + n]));
    const double total = Block(tmp).Reduce(acc, op);
    if (threadIdx.x == 0) out[n] = total;
    __syncthreads();
  }
}

// The second pass and the wait for its N results (no allocation: a reduction checks convergence
// every few iterations, and an allocation's free would wait for the whole device).
template <int N, class Op>
std::array<double, N> finish_reduction(CUstream_st* s, long long blocks, Op op,
                                       const ReduceScratch<N>& scratch) {
  finish_kernel<N><<<1, kFinishThreads, 0, s>>>(blocks, op, scratch.partial, scratch.out);
  check_launch("reduction finish launch");
  std::array<double, N> host;
  check_cuda(cudaMemcpyAsync(host.data(), scratch.out, N * sizeof(double),
                             cudaMemcpyDeviceToHost, s),
             "cudaMemcpyAsync (reduction result)");
  check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize (reduction result)");
  return host;
}

template <class Op, class F>
real reduce_device(const Exec& ex, const Region& r, Op op, const F& f) {
  const dim3 grid = reduce_grid(r);
  const long long blocks = static_cast<long long>(grid.x) * grid.y * grid.z;
  const ReduceScratch<1> scratch = ReduceScratch<1>::of(ex, blocks);
  CUstream_st* s = ex.stream(Lane::inner);
  reduce_kernel<<<grid, dim3(kReduceX, kReduceY, 1), 0, s>>>(r, op, f, scratch.partial);
  check_launch("reduce kernel launch");
  return static_cast<real>(finish_reduction<1>(s, blocks, op, scratch)[0]);
}

}  // namespace detail
#endif

namespace detail {
#if defined(__GNUC__)
#define STAGHORN_FLATTEN __attribute__((flatten))
#else
#define STAGHORN_FLATTEN
#endif

// One row of a region, a vectorised loop along the unit-stride x. Flattened: every call the
// kernel makes is inlined into it (GCC's inliner otherwise leaves the big fused kernels'
// helpers, e.g. Stokes' stress updates, as calls, and a loop with a call is not vectorised).
template <class F>
STAGHORN_FLATTEN void cpu_row(const F& g, int lo, int hi, int j, int k) {
#pragma omp simd
  for (int i = lo; i < hi; ++i) g(i, j, k);
}

// Rows of the region in a static schedule over (k, j), the same one that placed the fields' pages
// (core/memory.cpp, first touch). Every thread runs its own copy of the functor: the compiler
// then knows that its members (the fields' base pointers, the coefficients) cannot alias the
// values the kernel stores, keeps them in registers and needs no run-time alias checks.
template <class F>
void cpu_for_each(const Region& r, const F& f) {
#pragma omp parallel
  {
    const F g = f;
#pragma omp for collapse(2) schedule(static)
    for (int k = r.lo.z; k < r.hi.z; ++k)
      for (int j = r.lo.y; j < r.hi.y; ++j) cpu_row(g, r.lo.x, r.hi.x, j, k);
  }
}
}  // namespace detail

[[noreturn]] inline void not_compiled_for_cuda() {
  throw Error("a kernel was launched on the cuda backend from code not compiled by nvcc");
}

template <class F>
void for_each(const Exec& ex, const Region& r, Lane lane, const F& f) {
  if (r.empty()) return;
  if (ex.on_device()) {
#if defined(__CUDACC__)
    detail::launch(ex.stream(lane), r, f);
    return;
#else
    (void)lane;
    not_compiled_for_cuda();
#endif
  }
  detail::cpu_for_each(r, f);
}

template <class F>
void for_each(const Exec& ex, const Region& r, const F& f) {
  for_each(ex, r, Lane::inner, f);
}

// Like for_each, for kernels that reuse values along z: F has a `State start(i, j, k)` that loads
// what cell k needs from below, and `void operator()(State&, i, j, k)` that processes cell k and
// moves the state on to k + 1. On the GPU each thread marches `chunk` cells of one column (a
// register queue); on the CPU every cell starts afresh (same arithmetic, no reuse).
template <class F>
void for_each_marching(const Exec& ex, const Region& r, Lane lane, int chunk, const F& f) {
  if (r.empty()) return;
  if (ex.on_device()) {
#if defined(__CUDACC__)
    detail::launch_march(ex.stream(lane), r, chunk, f);
    return;
#else
    (void)lane, (void)chunk;
    not_compiled_for_cuda();
#endif
  }
  detail::cpu_for_each(r, [&f](int i, int j, int k) {
    auto state = f.start(i, j, k);
    f(state, i, j, k);
  });
}

// Reduces f(i, j, k) over a region with Op on this rank (callers combine ranks through Comm).
// Waits for the result.
template <class Op, class F>
real reduce(const Exec& ex, const Region& r, Op op, const F& f) {
  if (r.empty()) return Op::identity();
  if (ex.on_device()) {
#if defined(__CUDACC__)
    return detail::reduce_device(ex, r, op, f);
#else
    not_compiled_for_cuda();
#endif
  }
  // Fixed partition per thread, combined in thread order: repeatable for a given thread count.
  // Accumulated in double: a float sum over a whole block, one cell after the other, would lose
  // digits with the cell count (the GPU's tree reduction does not).
  std::vector<double> partial(omp_get_max_threads(), Op::identity());
#pragma omp parallel
  {
    double acc = Op::identity();
#pragma omp for collapse(2) schedule(static)
    for (int k = r.lo.z; k < r.hi.z; ++k)
      for (int j = r.lo.y; j < r.hi.y; ++j)
        for (int i = r.lo.x; i < r.hi.x; ++i) acc = op(acc, static_cast<double>(f(i, j, k)));
    partial[omp_get_thread_num()] = acc;
  }
  double total = Op::identity();
  for (double p : partial) total = op(total, p);
  return static_cast<real>(total);
}

}  // namespace staghorn
