#pragma once
// A sparse set of items as a list on the backend: a pass over a few scattered cells (stiff
// bodies', say) visits only them, not their whole bounding region. A CellList holds cells, in
// ascending linear order (x fastest), so neighbouring threads read neighbouring cells; an
// ItemList<T> holds records of the caller's (a cell and what a pass needs to know about it, read
// in one coalesced load instead of gathered from its neighbours). for_each_cell(ex, list, f) calls
// f(i, j, k) for every listed cell, for_each_item(ex, list, f) f(item) for every item (a
// reference: the pass may update it); reduce_segments has overloads for both
// (core/reduce_segments.hpp).

#include <omp.h>

#include <vector>

#include "core/backend.hpp"
#include "core/error.hpp"
#include "core/for_each.hpp"
#include "core/geometry.hpp"
#include "core/memory.hpp"

namespace staghorn {

template <class T>
class ItemList {
 public:
  ItemList() = default;
  // `items` copied to the backend of `ex`; waits for the copy.
  ItemList(const Exec& ex, const std::vector<T>& items)
      : items_(space_of(ex.backend()), items.size()) {
    if (items.empty()) return;
    copy_bytes(items_.data(), items.data(), items_.bytes(),
               ex.on_device() ? ex.stream(Lane::inner) : nullptr);
    ex.synchronize();
  }
  long long size() const { return static_cast<long long>(items_.size()); }
  bool empty() const { return items_.size() == 0; }
  T* data() const { return items_.data(); }

 private:
  Buffer<T> items_;
};

using CellList = ItemList<Int3>;

#if defined(__CUDACC__)
namespace detail {

template <class T, class F>
__global__ void for_each_item_kernel(T* items, long long n, F f) {
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long c = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; c < n;
       c += stride)
    f(items[c]);
}

// Blocks for a grid-stride loop over `n` items of 256 threads: enough to fill any device, and
// within the grid's x limit.
inline unsigned list_blocks(long long n) {
  const long long needed = (n + 255) / 256;
  return static_cast<unsigned>(needed < 65535 ? needed : 65535);
}

}  // namespace detail
#endif

template <class T, class F>
void for_each_item(const Exec& ex, const ItemList<T>& list, const F& f) {
  if (list.empty()) return;
  if (ex.on_device()) {
#if defined(__CUDACC__)
    detail::
        for_each_item_kernel<<<detail::list_blocks(list.size()), 256, 0, ex.stream(Lane::inner)>>>(
            list.data(), list.size(), f);
    check_launch("for_each_item kernel launch");
#else
    not_compiled_for_cuda();
#endif
    return;
  }
  T* items = list.data();
  const long long n = list.size();
#pragma omp parallel for schedule(static)
  for (long long c = 0; c < n; ++c) f(items[c]);
}

namespace detail {
// f(i, j, k) as a function of the cell.
template <class F>
struct AtCell {
  F f;
  SH_HD void operator()(const Int3& p) const { f(p.x, p.y, p.z); }
};
}  // namespace detail

template <class F>
void for_each_cell(const Exec& ex, const CellList& list, const F& f) {
  for_each_item(ex, list, detail::AtCell<F>{f});
}

}  // namespace staghorn
