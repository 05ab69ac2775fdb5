// The CPU row kernel of rows.hpp: the loops along a row, the march of a thread's rows along z and
// the OpenMP split.
#include "models/diffusion/rows.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/host_rows.hpp"

namespace staghorn::diffusion {
namespace {

// The four fields of an iteration (one layout: one offset addresses a cell in each).
struct Fields {
  View H, H_old, H_new, dHdtau;
};

// out[x] = the term (face_term) of the face between lo[x] and hi[x], x < n.
template <int N>
SH_HOST_FLATTEN void face_terms(const Material& mat, const real* lo, const real* hi, int n,
                                real* out) {
  const Material m = mat;
#pragma omp simd
  for (int x = 0; x < n; ++x) out[x] = face_term<N>(m, lo[x], hi[x]);
}

// Row (j, k) again by the generic kernel, from dHdtau's values before the row's first pass.
template <int Dim, int N>
SH_HOST_NOINLINE void redo_row(const Coefficients& co, const Fields& f, int i0, int j, int k, int n,
                               const real* v_in) {
  const Iteration<Dim, N> it{co, f.H, f.H_old, f.H_new, f.dHdtau};
  real* v = f.dHdtau.p + f.H.offset(i0, j, k);
  for (int x = 0; x < n; ++x) v[x] = v_in[x];
  for (int x = 0; x < n; ++x) it(i0 + x, j, k);
}

// The n cells of row (j, k) from i0: fs and fb hold the terms of the row's south and bottom
// faces, replaced by its north and top ones for the next row and plane; fx and v_in are scratch
// rows of n + 1 and n values. The pseudo-steps skip pt::optimal_step's large-a branch, and with
// Single (a whole exponent) take Coefficients::single_arguments; a row where some cell needs the
// large-a branch or the double arguments is done again by the generic kernel, from dHdtau's values
// kept in v_in. Compiled for AVX-512, AVX2 and the baseline (SH_HOST_CLONES): 8, 4 or 2 cells per
// vector.
template <int Dim, int N, bool Single>
SH_HOST_CLONES void row(const Coefficients& coef, const Fields& fields, int i0, int j, int k, int n,
                        real* fs, real* fb, real* fx, real* v_in) {
  const Coefficients co = coef;
  const Fields f = fields;
  const View h = f.H;
  const std::ptrdiff_t o = h.offset(i0, j, k);
  face_terms<N>(co.mat, h.p + o - 1, h.p + o, n + 1, fx);
  const real* old = f.H_old.p + o;
  real* v = f.dHdtau.p + o;
  real* out = f.H_new.p + o;
  int large = 0;
#pragma omp simd reduction(| : large)
  for (int x = 0; x < n; ++x) {
    const Star s = gather<Dim>(h, o + x);
    float a, b;  // the step's arguments in single precision (pt::float_step's rounding)
    if constexpr (Single) {
      float hi, lo;
      co.bounds<Dim, N>(s, hi, lo);
      large |= !co.single_arguments<N>(hi, lo, a, b);
    } else {  // a fractional exponent: Coefficients::double_step's arguments
      real da, db;
      co.double_arguments<Dim, N>(s, da, db);
      large |= !(da < pt::kFloatSafe);
      a = pt::single_argument(da), b = pt::single_argument(db);
    }
    // One assignment: a step assigned in the branches above keeps GCC from vectorising the loop.
    const pt::FloatStep st = pt::single_step(a, b, co.cfl);
    FaceTerms q{fx[x], fx[x + 1], 0, 0, 0, 0};
    if constexpr (Dim >= 2) q.s = fs[x], q.n = face_term<N>(co.mat, s.c, s.n);
    if constexpr (Dim >= 3) q.b = fb[x], q.t = face_term<N>(co.mat, s.c, s.t);
    const real R = co.residual<Dim>(s.c, old[x], q);
    real vx = v_in[x] = v[x];
    out[x] =
        pt::advance(s.c, R, vx, {co.dt * static_cast<real>(st.factor), static_cast<real>(st.damp)});
    v[x] = vx;
    if constexpr (Dim >= 2) fs[x] = q.n;
    if constexpr (Dim >= 3) fb[x] = q.t;
  }
  if (large) redo_row<Dim, N>(co, f, i0, j, k, n, v_in);
}

// The largest |R| of the n cells of a row from offset o, the generic residual's arithmetic
// (AbsResidual); nan set where some |R| is NaN (then the lanes' maxima mean nothing). The maximum
// of the other values does not depend on the order they are met in: the generic reduction's bits.
template <int Dim, int N>
SH_HOST_CLONES real row_max_abs_residual(const Coefficients& coef, const View& H, const View& H_old,
                                         std::ptrdiff_t o, int n, int& nan) {
  const Coefficients co = coef;
  const View h = H;
  const real* old = H_old.p + o;
  real m = -std::numeric_limits<real>::infinity();
  int bad = 0;
#pragma omp simd reduction(max : m) reduction(| : bad)
  for (int x = 0; x < n; ++x) {
    const real R = std::fabs(co.residual<Dim, N>(gather<Dim>(h, o + x), old[x]));
    bad |= R != R;
    m = m > R ? m : R;
  }
  nan |= bad;
  return m;
}

// A thread's row buffers.
struct Buffers {
  std::vector<real> fx, fs, fb, v_in;  // fb: one row per row of a tile
  Buffers(int n, int tile) : fx(n + 1), fs(n), fb(std::size_t(n) * tile), v_in(n) {}
};

// Rows j0 .. j1 - 1 of planes k0 .. k1 - 1 along x from i0 (n cells), plane after plane.
template <int Dim, int N>
void block(const Coefficients& co, const Fields& f, int i0, int n, int j0, int j1, int k0, int k1,
           Buffers& b) {
  const View& H = f.H;
  if constexpr (Dim >= 3)
    for (int j = j0; j < j1; ++j) {
      const real* c = H.p + H.offset(i0, j, k0);
      face_terms<N>(co.mat, c - H.sz, c, n, b.fb.data() + std::size_t(j - j0) * n);
    }
  const bool single = N >= 0 || co.mat.n_int >= 0;  // whole exponents: single_arguments
  for (int k = k0; k < k1; ++k) {
    if constexpr (Dim >= 2) {
      const real* c = H.p + H.offset(i0, j0, k);
      face_terms<N>(co.mat, c - H.sy, c, n, b.fs.data());
    }
    for (int j = j0; j < j1; ++j) {
      real* fs = b.fs.data();
      real* fb = b.fb.data() + std::size_t(j - j0) * n;
      if (single)
        row<Dim, N, true>(co, f, i0, j, k, n, fs, fb, b.fx.data(), b.v_in.data());
      else if constexpr (N < 0)
        row<Dim, N, false>(co, f, i0, j, k, n, fs, fb, b.fx.data(), b.v_in.data());
    }
  }
}

// Rows per y tile of the march along z: the tile's three planes of H and its z face terms take half
// the core's L2 (the rest: the streams of H_old, dHdtau and H_new), so that a value of H comes
// from L3 or memory once per iteration. At least 2 rows, at most 64.
inline int tile_rows(int n) {
  return std::clamp(static_cast<int>(0.5 * l2_cache_bytes() / (4.0 * n * sizeof(real))), 2, 64);
}

// Rows q0 .. q1 - 1 of region r (a thread's share), tile by tile (for_each_tile).
template <int Dim, int N>
void thread_rows(const Coefficients& co, const Fields& f, const Region& r, long long q0,
                 long long q1) {
  if (q0 >= q1) return;
  const long long ny = r.hi.y - r.lo.y;
  const int n = r.hi.x - r.lo.x;
  // Rows per block: a y tile in 3-D (the bottom terms' buffer holds one), else a whole plane.
  const int ty = static_cast<int>(Dim >= 3 ? std::min<long long>(tile_rows(n), ny) : ny);
  Buffers b(n, Dim >= 3 ? ty : 1);
  for_each_tile(r, q0, q1, ty, [&](int j0, int j1, int k0, int k1) {
    block<Dim, N>(co, f, r.lo.x, n, j0, j1, k0, k1, b);
  });
}

}  // namespace

template <int Dim, int N>
void iterate_rows(const Coefficients& co, const View& H, const View& H_old, const View& H_new,
                  const View& dHdtau, const Region& r) {
  if (r.empty()) return;
  const Fields f{H, H_old, H_new, dHdtau};
  const long long rows = static_cast<long long>(r.hi.y - r.lo.y) * (r.hi.z - r.lo.z);
  for_each_thread_rows(rows,
                       [&](long long q0, long long q1) { thread_rows<Dim, N>(co, f, r, q0, q1); });
}

template <int Dim, int N>
real max_abs_residual_rows(const Coefficients& co, const View& H, const View& H_old,
                           const Region& r) {
  real m = -std::numeric_limits<real>::infinity();
  int nan = 0;
#pragma omp parallel for collapse(2) schedule(static) reduction(max : m) reduction(| : nan)
  for (int k = r.lo.z; k < r.hi.z; ++k)
    for (int j = r.lo.y; j < r.hi.y; ++j) {
      const real row =
          row_max_abs_residual<Dim, N>(co, H, H_old, H.offset(r.lo.x, j, k), r.hi.x - r.lo.x, nan);
      m = m > row ? m : row;
    }
  return nan ? std::numeric_limits<real>::quiet_NaN() : m;
}

#define STAGHORN_DIFFUSION_ROWS(Dim, N)                                                          \
  template void iterate_rows<Dim, N>(const Coefficients&, const View&, const View&, const View&, \
                                     const View&, const Region&);                                \
  template real max_abs_residual_rows<Dim, N>(const Coefficients&, const View&, const View&,     \
                                              const Region&);
STAGHORN_DIFFUSION_ROWS_EACH(STAGHORN_DIFFUSION_ROWS)
#undef STAGHORN_DIFFUSION_ROWS

}  // namespace staghorn::diffusion
