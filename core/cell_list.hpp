#pragma once
// A sparse set of cells as a list on the backend: a pass over a few scattered cells (stiff
// bodies', say) visits only them, not their whole bounding region. The list is in ascending linear
// order (x fastest), so neighbouring threads read neighbouring cells. for_each_cell(ex, list, f)
// calls f(i, j, k) for every listed cell; reduce_segments has an overload for lists
// (core/reduce_segments.hpp).

#include <omp.h>

#include <vector>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/for_each.hpp"
#include "core/geometry.hpp"
#include "core/memory.hpp"

namespace staghorn {

class CellList {
 public:
  CellList() = default;
  // `cells` (ascending linear order) copied to the backend of `ex`; waits for the copy.
  CellList(const Exec& ex, const std::vector<Int3>& cells)
      : cells_(space_of(ex.backend()), cells.size()) {
    if (cells.empty()) return;
    copy_bytes(cells_.data(), cells.data(), cells_.bytes(),
               ex.on_device() ? ex.stream(Lane::inner) : nullptr);
    ex.synchronize();
  }
  long long size() const { return static_cast<long long>(cells_.size()); }
  bool empty() const { return cells_.size() == 0; }
  const Int3* data() const { return cells_.data(); }

 private:
  Buffer<Int3> cells_;
};

#if defined(__CUDACC__)
namespace detail {

template <class F>
__global__ void for_each_cell_kernel(const Int3* cells, long long n, F f) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; c < n;
       c += stride) {
    const Int3 p = cells[c];
    f(p.x, p.y, p.z);
  }
}

// Blocks for a grid-stride loop over `n` items of 256 threads: enough to fill any device, and
// within the grid's x limit.
inline unsigned list_blocks(long long n) {
  const long long needed = (n + 255) / 256;
  return static_cast<unsigned>(needed < 65535 ? needed : 65535);
}

}  // namespace detail
#endif

template <class F>
void for_each_cell(const Exec& ex, const CellList& list, const F& f) {
  if (list.empty()) return;
  if (ex.on_device()) {
#if defined(__CUDACC__)
    detail::
        for_each_cell_kernel<<<detail::list_blocks(list.size()), 256, 0, ex.stream(Lane::inner)>>>(
            list.data(), list.size(), f);
    check_launch("for_each_cell kernel launch");
#else
    not_compiled_for_cuda();
#endif
    return;
  }
  const Int3* cells = list.data();
  const long long n = list.size();
#pragma omp parallel for schedule(static)
  for (long long c = 0; c < n; ++c) f(cells[c].x, cells[c].y, cells[c].z);
}

}  // namespace staghorn
