#pragma once
// Copies into shared memory that the block's threads do not carry out themselves (include only
// from code compiled by nvcc; Hopper, sm_90): one thread hands a whole contiguous run of cells to
// the copy engine (cp.async.bulk), and an mbarrier counts the bytes as they land, so the threads
// spend no instructions, registers or load-store queue slots on them. A run's global address,
// shared address and length must be multiples of 16 bytes; Layout's 128-byte rows make every
// row's runs between 16-byte units qualify (floor_unit, ceil_unit).
// Element-wise asynchronous copies (cp.async) can report to the same barrier (arrive_on_copies).
// On the H100 machines we measure on, the tensor form of the copy (cp.async.bulk.tensor, with a
// CUtensorMap) faults as an illegal instruction even in the CUDA programming guide's own
// example, while these 1-D runs work: docs/models/mhd.md.
#include <cstdint>
#include <cuda/ptx>

#include "core/backend.hpp"

namespace staghorn::bulk {

namespace ptx = cuda::ptx;

// Cells per 16-byte unit, and index i rounded down / up to one (from a 128-byte aligned origin).
constexpr int kUnit = 16 / sizeof(real);
SH_HD constexpr int floor_unit(int i) { return i & ~(kUnit - 1); }
SH_HD constexpr int ceil_unit(int i) { return floor_unit(i + kUnit - 1); }

// A barrier whose phase completes when `count` arrivals are in and the announced bytes landed.
__device__ inline void init(std::uint64_t* bar, unsigned count) { ptx::mbarrier_init(bar, count); }

// Makes initialised barriers visible to the copy engine; a __syncthreads then precedes any use.
__device__ inline void fence_init() {
  ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
}

// An arrival announcing `bytes` of bulk copies that must land before the phase completes.
__device__ inline void arrive_expecting(std::uint64_t* bar, std::uint32_t bytes) {
  ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, bar, bytes);
}

__device__ inline void arrive(std::uint64_t* bar) { (void)ptx::mbarrier_arrive(bar); }

// An arrival made once the calling thread's element-wise copies so far have landed (counted in
// the barrier's initial count: noinc).
__device__ inline void arrive_on_copies(std::uint64_t* bar) {
  ptx::cp_async_mbarrier_arrive_noinc(bar);
}

// Waits until the phase of the given parity (0, 1, 0, ...) has completed.
__device__ inline void wait(std::uint64_t* bar, unsigned parity) {
  while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}

// `cells` cells from `from` to `to`, counted by `bar` (all three 16-byte aligned).
__device__ inline void copy(real* to, const real* from, int cells, std::uint64_t* bar) {
  ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, to, from,
                     static_cast<std::uint32_t>(cells * sizeof(real)), bar);
}

}  // namespace staghorn::bulk
