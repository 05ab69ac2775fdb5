// The CPU pencil kernel of pencil.hpp: the per-segment loops, the per-row CPU clones and the
// OpenMP loop over rows.
#include "models/mhd/pencil.hpp"

#include <algorithm>

#include "core/dispatch.hpp"
#include "core/geometry.hpp"
#include "core/host_rows.hpp"
#include "models/mhd/kernels.hpp"

namespace staghorn::mhd {
namespace pencil {

constexpr int kWidth = 32;  // cells per segment: a Row of ~15 KB stays in L1

// The loops over cells inline everything they call (SH_HOST_FLATTEN, SH_HOST_CLONES of
// core/host_rows.hpp: gcc's inliner otherwise stops short of the ~40 derivatives per cell).

// A vector field's derivatives (VectorDerivatives) over a segment.
struct VectorRow {
  real grad[3][3][kWidth], lap[3][kWidth], grad_div[3][kWidth];
};

// Local's members over a segment, the thermodynamics and forcing of its cells.
struct Row {
  real lnrho[kWidth], ss[kWidth], lap_lnrho[kWidth], lap_ss[kWidth];
  real u[3][kWidth], glnrho[3][kWidth], gss[3][kWidth];
  VectorRow du, dA;
  real rho[kWidth], cs2[kWidth], force[3][kWidth];
};

// Component c's part of d (gathered onto a zeroed d) into cell x of r. grad_div collects the
// components' terms in add_component's order, ((0 + t0) + t1) + t2: adding 0 + t1 instead of t1
// changes only the sign of a zero, and a sum that starts from 0 + t0 is never -0 (the same bits).
inline void put_component(const VectorDerivatives& d, int c, VectorRow& r, int x) {
  for (int j = 0; j < 3; ++j) r.grad[c][j][x] = d.grad.m[c][j];
  r.lap[c][x] = d.lap[c];
  for (int i = 0; i < 3; ++i)
    r.grad_div[i][x] = c == 0 ? d.grad_div[i] : r.grad_div[i][x] + d.grad_div[i];
}

inline void get_vector(const VectorRow& r, int x, VectorDerivatives& d) {
  for (int c = 0; c < 3; ++c) {
    for (int j = 0; j < 3; ++j) d.grad.m[c][j] = r.grad[c][j][x];
    d.lap[c] = r.lap[c][x];
    d.grad_div[c] = r.grad_div[c][x];
  }
}

// Variable V's members of L (gather<Order, Entropy>(V, ...) onto a fresh Local) into cell x of r.
template <int V, bool Entropy>
inline void put(const Local& L, Row& r, int x) {
  if constexpr (V == kLnrho) {
    r.lnrho[x] = L.lnrho;
    for (int a = 0; a < 3; ++a) r.glnrho[a][x] = L.glnrho[a];
    if (Entropy) r.lap_lnrho[x] = L.lap_lnrho;
  } else if constexpr (V <= kUz) {
    r.u[V - kUx][x] = L.u[V - kUx];
    put_component(L.du, V - kUx, r.du, x);
  } else if constexpr (V <= kAz) {
    put_component(L.dA, V - kAx, r.dA, x);
  } else {
    r.ss[x] = L.ss;
    for (int a = 0; a < 3; ++a) r.gss[a][x] = L.gss[a];
    r.lap_ss[x] = L.lap_ss;
  }
}

// Cell x of r as the generic kernel's Local after gathering every variable.
template <bool Entropy>
inline Local get(const Row& r, int x) {
  Local L;
  L.lnrho = r.lnrho[x];
  for (int a = 0; a < 3; ++a) {
    L.u[a] = r.u[a][x];
    L.glnrho[a] = r.glnrho[a][x];
  }
  if (Entropy) {
    L.ss = r.ss[x];
    L.lap_lnrho = r.lap_lnrho[x];
    L.lap_ss = r.lap_ss[x];
    for (int a = 0; a < 3; ++a) L.gss[a] = r.gss[a][x];
  }
  get_vector(r.du, x, L.du);
  get_vector(r.dA, x, L.dA);
  return L;
}

// Step 1 for variable V over the n cells from p (the segment's first cell).
template <int Order, bool Entropy, int V>
SH_HOST_FLATTEN inline void gather_row(const real* p, const Axes& axes, int n, Row& r) {
  const Axes ax = axes;  // a copy the stores to r cannot alias: strides and weights stay put
#pragma GCC ivdep
  for (int x = 0; x < n; ++x) {
    Local L;
    gather<Order, Entropy>(V, p + x, ax, L);
    put<V, Entropy>(L, r, x);
  }
}

template <int Order, bool Entropy, int... V>
inline void gather_all(const StageArgs& a, std::ptrdiff_t o, int n, Row& r,
                       std::integer_sequence<int, V...>) {
  (gather_row<Order, Entropy, V>(a.in.p[V] + o, a.ax, n, r), ...);
}

// Step 3: rates and the 2N update of the n cells from offset o. The stage's switches are template
// arguments here (a's copy holds them as constants): a branch in the loop keeps it from being
// vectorised.
template <bool Entropy, int Vars_, bool ReadW, bool WriteW, bool Kinematic>
SH_HOST_FLATTEN inline void update_row(const StageArgs& args, std::ptrdiff_t o, int n,
                                       const Row& r) {
  StageArgs a = args;
  a.read_w = ReadW, a.write_w = WriteW, a.kinematic = Kinematic;
  const Ratios q = ratios_of(a.ph);
#pragma GCC ivdep
  for (int x = 0; x < n; ++x) {
    real rhs[kMaxVars];
    rates<Entropy>(get<Entropy>(r, x), a.ph, q, Thermo{r.rho[x], r.cs2[x]},
                   Vec3{r.force[0][x], r.force[1][x], r.force[2][x]}, Kinematic, rhs);
    update<Vars_>(a, o + x, rhs);
  }
}

template <bool Entropy, int Vars_>
inline void update_row(const StageArgs& a, std::ptrdiff_t o, int n, const Row& r) {
  dispatch_bool("read_w", a.read_w, [&](auto read_w) {
    dispatch_bool("write_w", a.write_w, [&](auto write_w) {
      dispatch_bool("kinematic", a.kinematic, [&](auto kinematic) {
        update_row<Entropy, Vars_, read_w.value, write_w.value, kinematic.value>(a, o, n, r);
      });
    });
  });
}

// The n cells of row (j, k) from i0 on, n <= kWidth.
template <int Order, bool Entropy>
inline void segment(const StageArgs& a, int i0, int j, int k, int n, Row& r) {
  constexpr int kVars = Substep<Order, Entropy>::kVars;
  const std::ptrdiff_t o = a.shape.offset(i0, j, k);
  gather_all<Order, Entropy>(a, o, n, r, std::make_integer_sequence<int, kVars>{});
  // The thermodynamics (arithmetic only: vectorised), then the forcing (sines and cosines: calls).
  const Physics ph = a.ph;
  const Ratios q = ratios_of(ph);
#pragma GCC ivdep
  for (int x = 0; x < n; ++x) {
    const Thermo th = thermo<Entropy>(ph, q, r.lnrho[x], Entropy ? r.ss[x] : 0);
    r.rho[x] = th.rho, r.cs2[x] = th.cs2;
  }
  for (int x = 0; x < n; ++x) {
    const Vec3 f = a.force.on ? a.force.at(i0 + x, j, k) : Vec3{};
    for (int c = 0; c < 3; ++c) r.force[c][x] = f[c];
  }
  update_row<Entropy, kVars>(a, o, n, r);
}

// Row (j, k) of region r, segment by segment, and the periodic images of its new values along the
// axes of wrap (write_images; wrap = 0: none). Compiled three times, with AVX-512, with AVX2 and
// for the baseline x86-64 (SSE2), and chosen on the running CPU at the first call (an ifunc): 8,
// 4 or 2 cells per vector instruction, and the same bits, since the clones differ only in the
// vectors' width (pencil.cpp is compiled without FMA contraction: model.cmake).
template <int Order, bool Entropy>
SH_HOST_CLONES void row(const StageArgs& a, const Region& r, int j, int k, Int3 wrap) {
  constexpr int kVars = Substep<Order, Entropy>::kVars;
  Row buffers;
  for (int i = r.lo.x; i < r.hi.x; i += kWidth)
    segment<Order, Entropy>(a, i, j, k, std::min(kWidth, r.hi.x - i), buffers);
  if (wrap == Int3{0, 0, 0}) return;
  for (int i = r.lo.x; i < r.hi.x; ++i) {
    const std::ptrdiff_t o = a.shape.offset(i, j, k);
    real f[kMaxVars];
    for (int v = 0; v < kVars; ++v) f[v] = a.out.p[v][o];
    write_images<Order / 2, kVars>(a, o, i, j, k, wrap, f);
  }
}

// Rows per y tile of the march below: the 2R + 1 planes of the tile's rows and their halo (every
// variable) that a row reads along z and the diagonals take about half the core's L2 (the rest:
// the stores to out and w, the Row), so that each value comes from L3 or memory once per stage
// and its other 2R reads hit L2. At least 2 rows, at most 64.
inline int tile_rows(const StageArgs& a, int vars, int R) {
  const double plane_row = double(a.shape.sy) * sizeof(real) * vars * (2 * R + 1);
  return std::clamp(static_cast<int>(0.5 * l2_cache_bytes() / plane_row) - 2 * R, 2, 64);
}

// Rows q0 .. q1 - 1 of region r, q = (k - lo.z) ny + (j - lo.y): the rows that schedule(static)
// of the (k, j) loop gives a thread (as core/memory.cpp's first touch places the pages), in a
// cache-friendly order: whole planes among them tile by tile along y, marching along z within a
// tile (z neighbours then come from L2); the partial planes at either end row by row.
template <int Order, bool Entropy>
void rows(const StageArgs& a, const Region& r, long long q0, long long q1, Int3 wrap) {
  const long long ny = r.hi.y - r.lo.y;
  auto at = [&](long long q) {
    row<Order, Entropy>(a, r, r.lo.y + int(q % ny), r.lo.z + int(q / ny), wrap);
  };
  const long long p0 = (q0 + ny - 1) / ny, p1 = q1 / ny;  // whole planes p0 .. p1 - 1
  if (p0 >= p1) {
    for (long long q = q0; q < q1; ++q) at(q);
    return;
  }
  for (long long q = q0; q < p0 * ny; ++q) at(q);
  const int ty = tile_rows(a, Substep<Order, Entropy>::kVars, Order / 2);
  for (long long j0 = 0; j0 < ny; j0 += ty)
    for (long long p = p0; p < p1; ++p)
      for (long long j = j0; j < std::min(j0 + ty, ny); ++j) at(p * ny + j);
  for (long long q = p1 * ny; q < q1; ++q) at(q);
}

}  // namespace pencil

template <int Order, bool Entropy>
void run_pencils(const StageArgs& a, const Region& r, Int3 wrap) {
  if (r.empty()) return;
  const long long rows = static_cast<long long>(r.hi.y - r.lo.y) * (r.hi.z - r.lo.z);
  for_each_thread_rows(
      rows, [&](long long q0, long long q1) { pencil::rows<Order, Entropy>(a, r, q0, q1, wrap); });
}

template void run_pencils<2, false>(const StageArgs&, const Region&, Int3);
template void run_pencils<2, true>(const StageArgs&, const Region&, Int3);
template void run_pencils<4, false>(const StageArgs&, const Region&, Int3);
template void run_pencils<4, true>(const StageArgs&, const Region&, Int3);
template void run_pencils<6, false>(const StageArgs&, const Region&, Int3);
template void run_pencils<6, true>(const StageArgs&, const Region&, Int3);
template void run_pencils<8, false>(const StageArgs&, const Region&, Int3);
template void run_pencils<8, true>(const StageArgs&, const Region&, Int3);

}  // namespace staghorn::mhd
