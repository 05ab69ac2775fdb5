#pragma once
// Several reductions of one region in one pass: f(i, j, k) returns Terms<N>, and reduce_each
// combines each of the N components with Op over the region. One launch and one wait for all N,
// where N calls of reduce() would launch, allocate and wait N times (the wait dominates small
// regions that are reduced every iteration, such as a stiff body's rigid modes).
//
// The order of the combination is fixed for a given region and backend (blocks in order on the
// GPU, threads in order on the CPU), so results repeat bit for bit; they are independent of the
// order altogether only where every partial sum is exact (quantised terms).

#include <array>

#include "core/for_each.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

namespace staghorn {

template <int N>
struct Terms {
  real v[N];
};

namespace detail {

template <int N>
SH_HD inline Terms<N> identity_terms(real id) {
  Terms<N> t;
  for (int n = 0; n < N; ++n) t.v[n] = id;
  return t;
}

#if defined(__CUDACC__)
// Pass 1: each block's N partial results, block-major (partial[block * N + n]); one plane per
// block (the plain sums' order, and so their bits, as they have always been).
template <int N, class Op, class F>
__global__ void reduce_each_kernel(Region r, Op op, F f, real* partial) {
  const int i = r.lo.x + blockIdx.x * kReduceX + threadIdx.x;
  const int j = r.lo.y + blockIdx.y * kReduceY + threadIdx.y;
  const int k = r.lo.z + blockIdx.z;
  const Terms<N> t = (i < r.hi.x && j < r.hi.y) ? f(i, j, k) : identity_terms<N>(Op::identity());
  using Block = cub::BlockReduce<real, kReduceX, cub::BLOCK_REDUCE_WARP_REDUCTIONS, kReduceY>;
  __shared__ typename Block::TempStorage tmp;
  const long long block =
      blockIdx.x + gridDim.x * (blockIdx.y + static_cast<long long>(gridDim.y) * blockIdx.z);
  for (int n = 0; n < N; ++n) {
    const real b = Block(tmp).Reduce(t.v[n], op);
    if (threadIdx.x == 0 && threadIdx.y == 0) partial[block * N + n] = b;
    __syncthreads();  // tmp is reused by the next component
  }
}

template <int N, class Op, class F>
std::array<double, N> reduce_each_device(const Exec& ex, const Region& r, Op op, const F& f) {
  const Int3 e = r.extent();
  const dim3 grid((e.x + kReduceX - 1) / kReduceX, (e.y + kReduceY - 1) / kReduceY, e.z);
  const long long blocks = static_cast<long long>(grid.x) * grid.y * grid.z;
  const ReduceScratch<N> scratch = ReduceScratch<N>::of(ex, static_cast<std::size_t>(blocks) * N);
  CUstream_st* s = ex.stream(Lane::inner);
  reduce_each_kernel<N><<<grid, dim3(kReduceX, kReduceY, 1), 0, s>>>(r, op, f, scratch.partial);
  check_launch("reduce_each kernel launch");
  return finish_reduction<N>(s, blocks, op, scratch);
}
#endif

}  // namespace detail

// Reduces each component of f(i, j, k) (a Terms<N>) over a region with Op on this rank (callers
// combine ranks through Comm); accumulated in double. Waits for the result.
template <int N, class Op, class F>
std::array<double, N> reduce_each(const Exec& ex, const Region& r, Op op, const F& f) {
  std::array<double, N> total;
  total.fill(Op::identity());
  if (r.empty()) return total;
  if (ex.on_device()) {
#if defined(__CUDACC__)
    return detail::reduce_each_device<N>(ex, r, op, f);
#else
    not_compiled_for_cuda();
#endif
  }
  // As reduce(): a fixed partition per thread, combined in thread order.
  std::vector<std::array<double, N>> partial(omp_get_max_threads(), total);
#pragma omp parallel
  {
    std::array<double, N> acc = total;
#pragma omp for collapse(2) schedule(static)
    for (int k = r.lo.z; k < r.hi.z; ++k)
      for (int j = r.lo.y; j < r.hi.y; ++j)
        for (int i = r.lo.x; i < r.hi.x; ++i) {
          const Terms<N> t = f(i, j, k);
          for (int n = 0; n < N; ++n) acc[n] = op(acc[n], static_cast<double>(t.v[n]));
        }
    partial[omp_get_thread_num()] = acc;
  }
  for (const auto& p : partial)
    for (int n = 0; n < N; ++n) total[n] = op(total[n], p[n]);
  return total;
}

}  // namespace staghorn
