#pragma once
// What the CPU's row kernels share (models/mhd/pencil.cpp, models/stokes/march.cpp,
// models/diffusion/rows.cpp; host code, never seen by nvcc): how their row loops are compiled,
// the L2 size their tiles are cut to, and the rows each OpenMP thread takes.

#include <omp.h>
#include <unistd.h>

#include <algorithm>

#include "core/geometry.hpp"

// A row loop inlines everything it calls: a call left in a loop keeps it scalar.
#if defined(__GNUC__)
#define SH_HOST_FLATTEN __attribute__((flatten))
#define SH_HOST_NOINLINE __attribute__((noinline))
#else
#define SH_HOST_FLATTEN
#define SH_HOST_NOINLINE
#endif
// A row function compiled for AVX-512, AVX2 and the build's baseline, chosen on the running CPU at
// the first call (an ifunc): the clones differ only in the vectors' width, and no FMA is
// contracted (-ffp-contract=off, CMakeLists.txt), so they give the same bits.
#if defined(__GNUC__) && defined(__x86_64__)
#define SH_HOST_CLONES __attribute__((flatten, target_clones("avx512f", "avx2", "default")))
#else
#define SH_HOST_CLONES SH_HOST_FLATTEN
#endif

namespace staghorn {

// The core's L2 size in bytes (1 MiB where the system does not say: some virtual machines).
inline long l2_cache_bytes() {
  static const long l2 = [] {
    const long b = sysconf(_SC_LEVEL2_CACHE_SIZE);
    return b > 0 ? b : 1L << 20;
  }();
  return l2;
}

// Calls f(q0, q1) on every thread of an OpenMP team with its rows q0 .. q1 - 1 of [0, rows):
// libgomp's schedule(static) split (contiguous, the first rows % threads one row longer), the one
// that placed the pages at first touch (core/memory.cpp).
template <class F>
void for_each_thread_rows(long long rows, F&& f) {
#pragma omp parallel
  {
    const long long t = omp_get_thread_num(), nt = omp_get_num_threads();
    const long long each = rows / nt, extra = rows % nt;
    const long long q0 = t * each + std::min(t, extra);
    f(q0, q0 + each + (t < extra));
  }
}

// Calls block(j0, j1, k0, k1) for rows j0 .. j1 - 1 of planes k0 .. k1 - 1, over rows q0 .. q1 - 1
// of region r (q = (k - lo.z) ny + (j - lo.y): a thread's share from for_each_thread_rows): its
// whole planes go tile by tile along y (tiles of ty rows), each tile marching along z; a partial
// plane at either end goes tile by tile within its plane.
template <class Block>
void for_each_tile(const Region& r, long long q0, long long q1, int ty, Block&& block) {
  if (q0 >= q1) return;
  const long long ny = r.hi.y - r.lo.y;
  auto part = [&](long long qa, long long qb) {  // rows qa .. qb - 1 of one plane
    for (long long q = qa; q < qb; q += ty) {
      const int k = r.lo.z + static_cast<int>(q / ny), j = r.lo.y + static_cast<int>(q % ny);
      block(j, j + static_cast<int>(std::min<long long>(ty, qb - q)), k, k + 1);
    }
  };
  const long long p0 = (q0 + ny - 1) / ny, p1 = q1 / ny;  // whole planes p0 .. p1 - 1
  if (p0 > p1) return part(q0, q1);
  if (q0 < p0 * ny) part(q0, p0 * ny);
  if (p0 < p1)
    for (int j0 = r.lo.y; j0 < r.hi.y; j0 += ty)
      block(j0, std::min(j0 + ty, r.hi.y), r.lo.z + static_cast<int>(p0),
            r.lo.z + static_cast<int>(p1));
  if (p1 * ny < q1) part(p1 * ny, q1);
}

}  // namespace staghorn
