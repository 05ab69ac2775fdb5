#pragma once
// A sparse set of items as a list on the backend: a pass over a few scattered cells (stiff
// bodies', say) visits only them, not their whole bounding region. A CellList holds cells, in
// ascending linear order (x fastest), so neighbouring threads read neighbouring cells; an
// ItemList<T> holds records of the caller's (a cell and what a pass needs to know about it, read
// in one coalesced load instead of gathered from its neighbours). for_each_cell(ex, list, f) calls
// f(i, j, k) for every listed cell, for_each_item(ex, list, f) f(item) for every item (a
// reference: the pass may update it), for_each_item_both two lists in one launch;
// reduce_segments (reduce_segments.hpp beside it) has overloads for cells and items.

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

// f on items start, start + stride, ... below n: one thread's share of a grid-stride loop.
template <class T, class F>
__device__ void walk_items(T* items, long long n, long long start, long long stride, const F& f) {
  for (long long c = start; c < n; c += stride) f(items[c]);
}

template <class T, class F>
__global__ void for_each_item_kernel(T* items, long long n, F f) {
  walk_items(items, n, blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x,
             static_cast<long long>(gridDim.x) * blockDim.x, f);
}

// Blocks for a grid-stride loop over `n` items of 256 threads: enough to fill any device, and
// within the grid's x limit.
inline unsigned list_blocks(long long n) {
  const long long needed = (n + 255) / 256;
  return static_cast<unsigned>(needed < 65535 ? needed : 65535);
}

// The first `blocks_a` blocks walk list a with fa, the others list b with fb.
template <class A, class FA, class B, class FB>
__global__ void for_each_item_both_kernel(A* a, long long na, FA fa, unsigned blocks_a, B* b,
                                          long long nb, FB fb) {
  const bool first = blockIdx.x < blocks_a;
  const unsigned block = first ? blockIdx.x : blockIdx.x - blocks_a;
  const long long stride =
      static_cast<long long>(first ? blocks_a : gridDim.x - blocks_a) * blockDim.x;
  const long long start = block * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (first)
    walk_items(a, na, start, stride, fa);
  else
    walk_items(b, nb, start, stride, fb);
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

// fa on every item of a and fb on every item of b, the two independent (no item of one touches
// what the other's does): on the GPU in one launch (a small list then costs no launch and no
// wait of its own), on the CPU one after the other.
template <class A, class FA, class B, class FB>
void for_each_item_both(const Exec& ex, const ItemList<A>& a, const FA& fa, const ItemList<B>& b,
                        const FB& fb) {
  if (a.empty() || b.empty() || !ex.on_device()) {
    for_each_item(ex, a, fa);
    for_each_item(ex, b, fb);
    return;
  }
#if defined(__CUDACC__)
  const unsigned blocks_a = detail::list_blocks(a.size()), blocks_b = detail::list_blocks(b.size());
  detail::for_each_item_both_kernel<<<blocks_a + blocks_b, 256, 0, ex.stream(Lane::inner)>>>(
      a.data(), a.size(), fa, blocks_a, b.data(), b.size(), fb);
  check_launch("for_each_item_both kernel launch");
#else
  not_compiled_for_cuda();
#endif
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
