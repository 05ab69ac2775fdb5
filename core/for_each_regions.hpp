#pragma once
// f(s, i, j, k) for every cell (i, j, k) of region s, in one launch on a GPU: a kernel over a few
// thin slabs (ghosts, halos) costs one launch instead of one per slab, and there each small launch
// costs about what its cells do. On the CPU region by region (the same calls).

#include <array>
#include <cstddef>

#include "core/for_each.hpp"

namespace staghorn {
namespace detail {

constexpr int kRegionsRow = 1024;  // launch shape {kRegionsRow, rows, 1}: rows spread over threads

template <std::size_t N, class F>
struct RegionsKernel {
  Region region[N];
  long long start[N + 1];  // region s holds the launch's elements [start[s], start[s + 1])
  F f;
  SH_HD void operator()(int x, int y, int) const {
    const long long t = x + static_cast<long long>(kRegionsRow) * y;
    if (t >= start[N]) return;
    int s = 0;
    while (t >= start[s + 1]) ++s;  // an empty region holds no element: it is stepped over
    const Region& r = region[s];
    const Int3 e = r.extent();
    const long long local = t - start[s], row = local / e.x;
    f(s, r.lo.x + static_cast<int>(local - row * e.x), r.lo.y + static_cast<int>(row % e.y),
      r.lo.z + static_cast<int>(row / e.y));
  }
};

// f on one region (the CPU's way: no launches to save, and its rows stay rows).
template <class F>
struct OfRegion {
  F f;
  int s;
  SH_HD void operator()(int i, int j, int k) const { f(s, i, j, k); }
};

// The one launch over all regions: its kernel, and the region of launch positions it runs over.
template <std::size_t N, class F>
RegionsKernel<N, F> regions_kernel(const std::array<Region, N>& regions, const F& f) {
  RegionsKernel<N, F> k{};
  k.f = f;
  k.start[0] = 0;
  for (std::size_t s = 0; s < N; ++s) {
    k.region[s] = regions[s];
    k.start[s + 1] = k.start[s] + regions[s].size();
  }
  return k;
}
template <std::size_t N, class F>
Region launch_of(const RegionsKernel<N, F>& k) {
  const long long rows = (k.start[N] + kRegionsRow - 1) / kRegionsRow;
  return {{0, 0, 0}, {kRegionsRow, static_cast<int>(rows), 1}};
}

}  // namespace detail

// Cells that lie in two regions are visited twice: f must give them the same result each time.
template <std::size_t N, class F>
void for_each_regions(const Exec& ex, const std::array<Region, N>& regions, Lane lane, const F& f) {
  if (!ex.on_device()) {
    for (std::size_t s = 0; s < N; ++s)
      for_each(ex, regions[s], lane, detail::OfRegion<F>{f, static_cast<int>(s)});
    return;
  }
  const detail::RegionsKernel<N, F> k = detail::regions_kernel(regions, f);
  for_each(ex, detail::launch_of(k), lane, k);  // nothing where all regions are empty
}

}  // namespace staghorn
