#pragma once
// Segmented reductions: one pass over a region in which each cell adds K terms to each of the
// segments it touches (e.g. the stiff bodies whose faces it holds), giving segments x K results.
// f(i, j, k, out) calls out.add(s, terms) with a Terms<K> for every segment s (0 <= s < segments)
// the cell contributes to; a cell may add to several segments, and to one segment several times.
// One launch and one wait for all segments, where a reduce_each per segment would launch and wait
// once per segment. Over a region, or over a CellList (cell_list.hpp beside it): only the listed
// cells; or over an ItemList<T> of the caller's records, f(item, out) for every item.
// reduce_segments_into leaves the results on the backend, in a buffer of the caller's, and does
// not wait: for passes that feed further passes, with no trip through the host between them. It
// may also run a small step once after the whole pass, on the backend (ThenOnce: a fit per
// segment from its results, say), where it would otherwise take a launch of its own.
//
// The CPU combines per-thread accumulators in thread order, so its results repeat bit for bit.
// The GPU combines with atomics in no fixed order: its sums repeat bit for bit only where every
// partial sum is exact (quantised terms, core/exact_sum.hpp; integers); its maxima always do.

#include <omp.h>

#include <cstddef>
#include <type_traits>
#include <vector>

#include "models/stokes/stiff_bodies/cell_list.hpp"
#include "core/for_each.hpp"
#include "core/reduce_each.hpp"

#if defined(__CUDACC__)
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include "core/occupancy.hpp"
#endif

namespace staghorn {

// What reduce_segments_into runs once after its whole pass, on the backend: g(t, threads) for every
// t < threads (on the GPU the threads of the block that finishes last, which read the results
// through read_combined; on the CPU one call g(0, 1)). `counter`: one unsigned on the backend,
// zero before the first pass, counting finished blocks (the last sets it back to zero).
template <class G>
struct ThenOnce {
  G g;
  unsigned* counter;
};
struct NothingAfter {};

// A result that other blocks of a kernel combined (atomics, at L2), read past the L1.
SH_HD inline double read_combined(const double* p) {
#if defined(__CUDA_ARCH__)
  return __ldcg(p);
#else
  return *p;
#endif
}

namespace detail {

// What f's `out` is: accumulators acc[s * K + n] for term n of segment s, each term combined into
// its accumulator by Combine (in place on a CPU thread's own, atomically on the GPU).
template <int K, class Combine>
struct Segments {
  double* acc;
  Combine combine;
  SH_HD void add(int s, const Terms<K>& t) const {
    double* a = acc + static_cast<std::size_t>(s) * K;
    for (int n = 0; n < K; ++n) combine(a + n, static_cast<double>(t.v[n]));
  }
};

template <class Op>
struct CombineInPlace {
  Op op;
  SH_HD void operator()(double* p, double v) const { *p = op(*p, v); }
};

// Per-thread accumulators that `visit(out)` fills (an OpenMP worksharing loop over the cells
// inside), combined in thread order.
template <int K, class Op, class Visit>
std::vector<double> combine_threads(int segments, Op op, const Visit& visit) {
  const std::size_t count = static_cast<std::size_t>(segments) * K;
  std::vector<std::vector<double>> partial(omp_get_max_threads());
#pragma omp parallel
  {
    std::vector<double> acc(count, Op::identity());
    visit(Segments<K, CombineInPlace<Op>>{acc.data(), {op}});
    partial[omp_get_thread_num()] = std::move(acc);
  }
  std::vector<double> total(count, Op::identity());
  for (const std::vector<double>& p : partial)
    for (std::size_t n = 0; n < p.size(); ++n) total[n] = op(total[n], p[n]);
  return total;
}

template <int K, class Op, class F>
std::vector<double> reduce_segments_host(const Region& r, int segments, Op op, const F& f) {
  return combine_threads<K>(segments, op, [&](const auto& out) {
    const F g = f;
#pragma omp for collapse(2) schedule(static)
    for (int k = r.lo.z; k < r.hi.z; ++k)
      for (int j = r.lo.y; j < r.hi.y; ++j)
        for (int i = r.lo.x; i < r.hi.x; ++i) g(i, j, k, out);
  });
}

// f's terms of one item: a cell's (i, j, k) or a record's.
template <class F, class Out>
SH_HD void add_terms(const F& f, const Int3& cell, const Out& out) {
  f(cell.x, cell.y, cell.z, out);
}
template <class F, class T, class Out>
SH_HD void add_terms(const F& f, const T& item, const Out& out) {
  f(item, out);
}

template <int K, class Op, class T, class F>
std::vector<double> reduce_segments_host(const ItemList<T>& list, int segments, Op op, const F& f) {
  return combine_threads<K>(segments, op, [&](const auto& out) {
    const F g = f;
    const T* items = list.data();
#pragma omp for schedule(static)
    for (long long c = 0; c < list.size(); ++c) add_terms(g, items[c], out);
  });
}

#if defined(__CUDACC__)
constexpr int kSegmentThreads = 256;
// Per-block accumulators in shared memory up to this size; more segments go to global atomics.
constexpr std::size_t kSegmentSharedBytes = 32 * 1024;

__device__ inline void atomic_combine(double* p, double v, SumOp) { atomicAdd(p, v); }

// Any other Op: compare and swap until the combined value is in place.
template <class Op>
__device__ inline void atomic_combine(double* p, double v, Op op) {
  auto* bits = reinterpret_cast<unsigned long long*>(p);
  unsigned long long old = *bits, assumed;
  do {
    assumed = old;
    const unsigned long long next = __double_as_longlong(op(__longlong_as_double(assumed), v));
    if (next == assumed) return;
    old = atomicCAS(bits, assumed, next);
  } while (old != assumed);
}

// f's `out` on the GPU: the lanes of a warp that add to the same segment together (most often the
// whole warp, inside one body) first combine their terms by shuffles, then one of them combines
// the result into the accumulators. Every lane combining into the same accumulator at once would
// be a 32-way conflict per term (a compare-and-swap loop for the maximum).
template <int K, class Op>
struct GroupedSegments {
  double* acc;
  Op op;
  __device__ void add(int s, const Terms<K>& t) const {
    namespace cg = cooperative_groups;
    const cg::coalesced_group same = cg::labeled_partition(cg::coalesced_threads(), s);
    double* a = acc + static_cast<std::size_t>(s) * K;
    for (int n = 0; n < K; ++n) {
      const double v = cg::reduce(same, static_cast<double>(t.v[n]), op);
      if (same.thread_rank() == 0) atomic_combine(a + n, v, op);
    }
  }
};

// f's `out` on the GPU with a lane's run of terms kept in registers: consecutive items of a lane
// that add to the same segment combine there, and the run goes to GroupedSegments only when the
// segment changes or the lane's items end. A lane's items are neighbours in the pass (the cells of
// one body, mostly), so most items cost neither a shuffle nor an atomic. For few terms only: a run
// of many would not stay in registers.
template <int K, class Op>
struct LaneRuns {
  GroupedSegments<K, Op> to;
  mutable int segment = -1;
  mutable Terms<K> run;
  __device__ void add(int s, const Terms<K>& t) const {
    if (s != segment) {
      flush();
      segment = s;
      run = t;
      return;
    }
    for (int n = 0; n < K; ++n) run.v[n] = to.op(run.v[n], t.v[n]);
  }
  __device__ void flush() const {
    if (segment >= 0) to.add(segment, run);
    segment = -1;
  }
};
constexpr int kMaxRunTerms = 8;

template <class Op>
__global__ void fill_identity_kernel(double* out, int count) {
  for (int n = blockIdx.x * blockDim.x + threadIdx.x; n < count; n += gridDim.x * blockDim.x)
    out[n] = Op::identity();
}

// The cells of a pass, by number: a region's in linear order (x fastest), or a list's.
struct RegionCells {
  Region r;
  SH_HD long long size() const { return r.size(); }
  SH_HD Int3 operator[](long long c) const {
    const Int3 e = r.extent();
    const long long row = c / e.x;
    return {r.lo.x + static_cast<int>(c - row * e.x), r.lo.y + static_cast<int>(row % e.y),
            r.lo.z + static_cast<int>(row / e.y)};
  }
};
template <class T>
struct ListItems {
  const T* items;
  long long n;
  SH_HD long long size() const { return n; }
  SH_HD const T& operator[](long long c) const { return items[c]; }
};

// Each warp takes one contiguous chunk of the cells, its lanes neighbouring cells at every step
// (coalesced), so that a lane's cells are neighbours too (LaneRuns); each block combines into its
// own shared accumulators (`shared`) that it then adds to `out`, or straight into `out`.
// The block that finishes last runs `then` (ThenOnce), after every block's results are in `out`.
template <class Then>
__device__ void then_once(const Then& then) {
  if constexpr (!std::is_same_v<Then, NothingAfter>) {
    __shared__ bool last;
    __threadfence();  // this thread's combinations are visible before the block counts itself
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(then.counter, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    then.g(static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x));
    if (threadIdx.x == 0) *then.counter = 0;
  }
}

template <int K, class Op, class Cells, class F, class Then>
__global__ void reduce_segments_kernel(Cells cells, int count, bool shared, Op op, F f, double* out,
                                       Then then) {
  extern __shared__ double local[];
  if (shared) {
    for (int n = threadIdx.x; n < count; n += blockDim.x) local[n] = Op::identity();
    __syncthreads();
  }
  const GroupedSegments<K, Op> grouped{shared ? local : out, op};
  const long long n = cells.size();
  const long long thread = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  const long long warps = static_cast<long long>(gridDim.x) * blockDim.x / 32;
  const long long chunk = ((n + warps - 1) / warps + 31) / 32 * 32;
  const long long begin = thread / 32 * chunk, end = begin + chunk < n ? begin + chunk : n;
  if constexpr (K <= kMaxRunTerms) {
    const LaneRuns<K, Op> acc{grouped};
    for (long long c = begin + thread % 32; c < end; c += 32) add_terms(f, cells[c], acc);
    acc.flush();
  } else {
    for (long long c = begin + thread % 32; c < end; c += 32) add_terms(f, cells[c], grouped);
  }
  if (shared) {
    __syncthreads();
    for (int m = threadIdx.x; m < count; m += blockDim.x)
      if (local[m] != Op::identity()) atomic_combine(out + m, local[m], op);
  }
  then_once(then);
}

// As many blocks as the device holds at once, no more (each block's accumulators cost `count`
// atomics at its end), and none without a cell: every lane in flight at once, for the loads in
// flight that hide the memory's latency.
template <class Kernel>
int segment_blocks(Kernel kernel, std::size_t shared_bytes, long long cells) {
  const long long resident = resident_blocks(kernel, kSegmentThreads, shared_bytes);
  const long long needed = (cells + kSegmentThreads - 1) / kSegmentThreads;
  return static_cast<int>(needed < resident ? needed : resident);
}

// Queues the pass on the inner lane: each segment's results combined into `out` (on the device).
template <int K, class Op, class Cells, class F, class Then = NothingAfter>
void launch_segments(const Exec& ex, const Cells& cells, int segments, Op op, const F& f,
                     double* out, const Then& then = {}) {
  const int count = segments * K;
  const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(double);
  const bool shared = bytes <= kSegmentSharedBytes;
  const std::size_t shared_bytes = shared ? bytes : 0;
  auto* kernel = reduce_segments_kernel<K, Op, Cells, F, Then>;
  kernel<<<segment_blocks(kernel, shared_bytes, cells.size()), kSegmentThreads, shared_bytes,
           ex.stream(Lane::inner)>>>(cells, count, shared, op, f, out, then);
  check_launch("reduce_segments kernel launch");
}

template <int K, class Op, class Cells, class F>
std::vector<double> reduce_segments_device(const Exec& ex, const Cells& cells, int segments, Op op,
                                           const F& f) {
  const int count = segments * K;
  const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(double);
  double* out = reinterpret_cast<double*>(ex.scratch((bytes + sizeof(real) - 1) / sizeof(real)));
  CUstream_st* s = ex.stream(Lane::inner);
  fill_identity_kernel<Op>
      <<<(count + kSegmentThreads - 1) / kSegmentThreads, kSegmentThreads, 0, s>>>(out, count);
  check_launch("reduce_segments fill launch");
  launch_segments<K>(ex, cells, segments, op, f, out);
  std::vector<double> host(count);
  check_cuda(cudaMemcpyAsync(host.data(), out, bytes, cudaMemcpyDeviceToHost, s),
             "cudaMemcpyAsync (reduce_segments)");
  check_cuda(cudaStreamSynchronize(s), "cudaStreamSynchronize (reduce_segments)");
  return host;
}

inline RegionCells device_cells(const Region& r) { return {r}; }
template <class T>
ListItems<T> device_cells(const ItemList<T>& list) {
  return {list.data(), list.size()};
}
#endif

inline bool no_cells(const Region& r) { return r.empty(); }
template <class T>
bool no_cells(const ItemList<T>& list) {
  return list.empty();
}

// Over a Region or a CellList (`cells`).
template <int K, class Op, class Cells, class F>
std::vector<double> reduce_segments_over(const Exec& ex, const Cells& cells, int segments, Op op,
                                         const F& f) {
  if (no_cells(cells) || segments <= 0)
    return std::vector<double>(static_cast<std::size_t>(segments > 0 ? segments : 0) * K,
                               Op::identity());
  if (ex.on_device()) {
#if defined(__CUDACC__)
    return reduce_segments_device<K>(ex, device_cells(cells), segments, op, f);
#else
    not_compiled_for_cuda();
#endif
  }
  return reduce_segments_host<K>(cells, segments, op, f);
}

template <class Then>
void then_on_host(const Then& then) {
  if constexpr (!std::is_same_v<Then, NothingAfter>) then.g(0, 1);
}

template <int K, class Op, class Cells, class F, class Then>
void reduce_segments_into_over(const Exec& ex, const Cells& cells, int segments, Op op, const F& f,
                               double* out, const Then& then) {
  if (no_cells(cells) || segments <= 0) return;
  if (ex.on_device()) {
#if defined(__CUDACC__)
    launch_segments<K>(ex, device_cells(cells), segments, op, f, out, then);
    return;
#else
    not_compiled_for_cuda();
#endif
  }
  const std::vector<double> total = reduce_segments_host<K>(cells, segments, op, f);
  for (std::size_t n = 0; n < total.size(); ++n) out[n] = op(out[n], total[n]);
  then_on_host(then);
}

}  // namespace detail

// Reduces the terms each cell of `r` adds to each segment with Op, on this rank (callers combine
// ranks through Comm); accumulated in double. Result [s * K + n]: term n of segment s, Op's
// identity where no cell added to it. Waits for the result.
template <int K, class Op, class F>
std::vector<double> reduce_segments(const Exec& ex, const Region& r, int segments, Op op,
                                    const F& f) {
  return detail::reduce_segments_over<K>(ex, r, segments, op, f);
}

// The same over the listed cells only (f(i, j, k, out)), or over the listed items (f(item, out)).
template <int K, class Op, class T, class F>
std::vector<double> reduce_segments(const Exec& ex, const ItemList<T>& list, int segments, Op op,
                                    const F& f) {
  return detail::reduce_segments_over<K>(ex, list, segments, op, f);
}

// The same, combined with Op into out[s * K + n] (segments x K doubles in the memory of ex's
// backend) onto what it holds: Op's identity there gives the reduction itself, and so does zero
// for a sum or for a maximum of terms that are never negative. On the GPU the pass is queued on
// the inner lane and this returns at once (no copy, no wait: the work queued after it finds the
// results in `out`); on the CPU it returns with `out` updated. `then` (ThenOnce) runs once after
// the pass, on the backend, where there is a cell to pass over.
template <int K, class Op, class F, class Then = NothingAfter>
void reduce_segments_into(const Exec& ex, const Region& r, int segments, Op op, const F& f,
                          double* out, const Then& then = {}) {
  detail::reduce_segments_into_over<K>(ex, r, segments, op, f, out, then);
}

template <int K, class Op, class T, class F, class Then = NothingAfter>
void reduce_segments_into(const Exec& ex, const ItemList<T>& list, int segments, Op op, const F& f,
                          double* out, const Then& then = {}) {
  detail::reduce_segments_into_over<K>(ex, list, segments, op, f, out, then);
}

}  // namespace staghorn
