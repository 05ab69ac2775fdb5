#pragma once
// Whole-field operations on the field's backend, queued on a lane (include only from kernel
// sources: they instantiate for_each).

#include "core/field.hpp"
#include "core/for_each.hpp"

namespace staghorn {

struct CopyKernel {
  View dst, src;
  SH_HD void operator()(int i, int j, int k) const { dst(i, j, k) = src(i, j, k); }
};

struct FillKernel {
  View dst;
  real value;
  SH_HD void operator()(int i, int j, int k) const { dst(i, j, k) = value; }
};

// A field's value at a cell, as the functor of a reduce.
struct ValueAt {
  View f;
  SH_HD real operator()(int i, int j, int k) const { return f(i, j, k); }
};

// dst = src over the whole padded block.
inline void copy(const Exec& ex, Field& dst, const Field& src, Lane lane = Lane::inner) {
  for_each(ex, dst.layout().all(), lane, CopyKernel{dst.view(), src.view()});
}

inline void fill(const Exec& ex, Field& dst, real value, Lane lane = Lane::inner) {
  for_each(ex, dst.layout().all(), lane, FillKernel{dst.view(), value});
}

}  // namespace staghorn
