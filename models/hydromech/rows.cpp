// The CPU row kernel of rows.hpp: the loops along a row, the march of a thread's tiles along z and
// the OpenMP split.
#include "models/hydromech/rows.hpp"

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "core/host_rows.hpp"

namespace staghorn::hydromech {
namespace {

// The four fields of an iteration (one layout: one offset addresses a cell in each), and the rules
// of Pe_new's ghosts beyond the region's rows (keep: none). The residual passes read Pe and
// phi_old only; Pass::residual_field writes R into Pe_new.
struct Fields {
  View Pe, phi_old, Pe_new, dPedtau;
  RowEndGhosts ghosts{{GhostRule::keep}, {GhostRule::keep}};
};

// A row of faces, one array per member of Face (unit-stride loads and stores in the row loops).
struct FaceRow {
  real *k, *q, *drive;
  Face at(int x) const { return {k[x], q[x], drive[x]}; }
  void set(int x, const Face& f) const { k[x] = f.k, q[x] = f.q, drive[x] = f.drive; }
};

// `rows` rows of `n` faces.
class FaceRows {
 public:
  FaceRows(int n, int rows) : n_(n), size_(std::size_t(n) * rows), data_(3 * size_) {}
  FaceRow row(int r) {
    real* p = data_.data() + std::size_t(r) * n_;
    return {p, p + size_, p + 2 * size_};
  }

 private:
  int n_;
  std::size_t size_;
  std::vector<real> data_;
};

// The porosity and permeability of a tile's rows and of the row on either side (jj = j - j0 + 1:
// 0 .. rows + 1), each of n + 2 cells (x = -1 .. n), for two planes: the one being updated (this)
// and the next.
class Planes {
 public:
  enum Which { kThis, kNext };
  Planes(int n, int rows)
      : width_(n + 2), plane_(std::size_t(width_) * (rows + 2)), phi_(2 * plane_), k_(2 * plane_) {}
  // Cell x = 0 of row jj.
  real* phi(Which w, int jj) { return phi_.data() + at(w, jj); }
  real* k(Which w, int jj) { return k_.data() + at(w, jj); }
  void advance() { std::swap(slot_[kThis], slot_[kNext]); }

 private:
  std::size_t at(Which w, int jj) const { return slot_[w] * plane_ + std::size_t(jj) * width_ + 1; }
  int width_;
  std::size_t plane_;
  std::vector<real> phi_, k_;
  int slot_[2] = {0, 1};
};

// What a row's update keeps of each cell for the cells that need optimal_step's large-a branch
// (a >= pt::kFloatSafe: here only where a value is not finite), which are redone after the row.
// The row's update loops also hand each other their values through it: the pseudo-step's switch
// (w), and the residual and step_arguments (R, a, b, dt).
struct StepKept {
  std::vector<real> v, R, a, b, dt, w;  // dPe/dtau before the update, R, step_arguments, w
  std::vector<float> damp;
  explicit StepKept(int n) : v(n), R(n), a(n), b(n), dt(n), w(n), damp(n) {}
  struct Row {
    real *v, *R, *a, *b, *dt, *w;
    float* damp;
  };
  Row row() { return {v.data(), R.data(), a.data(), b.data(), dt.data(), w.data(), damp.data()}; }
};

// The cells beside a plane's rows along x (x = -1 and n of each row), gathered: their porosity in
// one vector loop per plane instead of a scalar remainder of two cells per row.
struct RowEnds {
  std::vector<real> P, old, phi, k;
  explicit RowEnds(int rows) : P(2 * rows), old(2 * rows), phi(2 * rows), k(2 * rows) {}
};

// A thread's buffers, and its largest |R| so far (the residual pass).
struct Buffers {
  Planes planes;
  RowEnds ends;
  FaceRows fx, fs, fb;  // x faces of a row (n + 1), south faces of a row, bottom faces of a tile
  StepKept kept;
  real max_abs = -std::numeric_limits<real>::infinity();
  int nan = 0;  // some |R| was NaN (max_abs then means nothing)
  Buffers(int n, int rows)
      : planes(n, rows), ends(rows + 2), fx(n + 1, 1), fs(n, 1), fb(n, rows), kept(n) {}
};

// What a march computes: the iteration, only the residual's max-norm (the convergence check), or
// the residual of every cell into a field (the step's volume balance).
enum class Pass { iterate, max_residual, residual_field };

// Asks for the cache lines of n values from p (read: for_write false; read and written: true).
// The kernel's streams (Pe and phi_old of the plane ahead, dPe/dtau and Pe_new of the rows being
// updated) come from L3 or memory once per iteration, a row at a time between long arithmetic
// loops: asked for a row ahead, they arrive while the row before is computed instead of stalling
// the loop that first reads (or writes) them.
inline void prefetch_row(const real* p, int n, bool for_write) {
  if (!p) return;
  constexpr int kLine = 64 / sizeof(real);
  for (int x = 0; x < n + kLine; x += kLine) {
    if (for_write)
      __builtin_prefetch(p + x, 1, 3);
    else
      __builtin_prefetch(p + x, 0, 3);
  }
}

// The rows a row function asks for (prefetch_row) before its first and before its second loop
// (none where null): one row of one array at a time, as a burst of both arrays' lines waited for
// free line-fill buffers (the prefetches themselves stalled).
struct Ahead {
  const real *first = nullptr, *second = nullptr;
  int n = 0;
  bool for_write = false;
};

// The row loops. Each takes its own copies of the coefficients and views: the compiler then knows
// that the stores cannot change them and keeps them in registers.

// phi = phi(phi_old, Pe) and k(phi) of n cells (P, old: their Pe and phi_old): the generic
// kernel's porosity of a stencil point, here once per cell. Two loops: the switch w(Pe) first
// (into phi, as scratch), then the porosity from it (Material::porosity with w at hand: the same
// bits). In one loop each cell's exp, division and second exp form one dependency chain longer
// than the out-of-order window overlaps between vectors of cells; split, each loop's chain is
// half as long.
template <int N>
SH_HOST_CLONES void porosity_row(const Coefficients& coef, const real* P, const real* old, int n,
                                 real* phi, real* k, const Ahead& ahead = {}) {
  const Coefficients co = coef;
  prefetch_row(ahead.first, ahead.n, ahead.for_write);
#pragma omp simd
  for (int x = 0; x < n; ++x) phi[x] = co.mat.weakening_factor(P[x]);
  prefetch_row(ahead.second, ahead.n, ahead.for_write);
#pragma omp simd
  for (int x = 0; x < n; ++x) {
    const real f = co.mat.porosity(old[x], P[x], phi[x], co.dt);
    phi[x] = f;
    k[x] = co.permeability<N>(f);
  }
}

// The faces between n cells (P_lo, k_lo) and their neighbours on the high side along axis a
// (P_hi, k_hi): the row's x faces (the neighbours one cell on), or those of two rows or planes.
inline void faces_between(const Coefficients& coef, const real* P_lo, const real* k_lo,
                          const real* P_hi, const real* k_hi, int n, int a, const FaceRow& out) {
  const Coefficients co = coef;
  const FaceRow f = out;
#pragma omp simd
  for (int x = 0; x < n; ++x) f.set(x, co.face(k_lo[x], k_hi[x], P_lo[x], P_hi[x], a));
}

// Whether some of a row's n kept a is not below pt::kFloatSafe (or is NaN): one vector scan, as
// almost no row has one.
SH_HOST_CLONES bool any_large(const real* a, int n) {
  int large = 0;
#pragma omp simd reduction(| : large)
  for (int x = 0; x < n; ++x) large |= !(a[x] < pt::kFloatSafe);
  return large != 0;
}

// The cells of a row from offset o whose a is not below pt::kFloatSafe, again with the large-a
// pseudo-step: optimal_step's values, from the row's kept values.
SH_HOST_NOINLINE void redo_large(const Coefficients& co, const Fields& f, std::ptrdiff_t o, int n,
                                 const StepKept& kept) {
  if (!any_large(kept.a.data(), n)) return;
  for (int x = 0; x < n; ++x) {
    if (kept.a[x] < pt::kFloatSafe) continue;
    const pt::Step s{pt::large_a_dtau(kept.a[x], kept.dt[x], co.cfl, kept.damp[x]),
                     static_cast<real>(kept.damp[x])};
    real v = kept.v[x];
    f.Pe_new.p[o + x] = pt::advance(f.Pe.p[o + x], kept.R[x], v, s);
    f.dPedtau.p[o + x] = v;
  }
}

// The ghosts beyond the ends of the n cells from out (x = 0) by g's rules, as fill_ghosts sets
// them; nearest first on both sides, in turn (a row shorter than the halo mirrors ghosts too).
inline void fill_row_end_ghosts(const RowEndGhosts& g, real* out, int n) {
  const GhostSpan lo = ghost_span(false, 0, n, g.h), hi = ghost_span(false, 1, n, g.h);
  for (int d = 1; d <= g.h; ++d) {
    if (g.lo.kind != GhostRule::keep) set_ghost(out, g.lo, lo, -d);
    if (g.hi.kind != GhostRule::keep) set_ghost(out, g.hi, hi, n - 1 + d);
  }
}

// The kept values a row's update reads, at its cell x = 0.
struct RowInputs {
  const real *phi, *k;  // the row's (k: x = -1 .. n)
  const real* k_north;  // the row above in y (2-D, 3-D)
  const real* k_top;    // the row above in z (3-D)
};

// A row's faces at its cell x = 0: x faces (x = 0 .. n), south faces (replaced by the north ones
// for the next row) and bottom faces (replaced by the top ones for the next plane).
struct RowFaces {
  FaceRow x, south, bottom;
};

// Cell x of a row from offset o: its faces summed into div q and the pseudo-step's bounds, its
// north and top faces handed on.
template <int Dim>
inline CellEval faces_of_cell(const Coefficients& co, const RowInputs& in, const RowFaces& f,
                              const real* P, std::ptrdiff_t sy, std::ptrdiff_t sz, int x) {
  CellEval e{};
  e.phi = in.phi[x];
  e.k_c = in.k[x];
  co.add_faces(f.x.at(x), f.x.at(x + 1), 0, e);
  if constexpr (Dim >= 2) {
    const Face north = co.face(in.k[x], in.k_north[x], P[x], P[x + sy], 1);
    co.add_faces(f.south.at(x), north, 1, e);
    f.south.set(x, north);
  }
  if constexpr (Dim >= 3) {
    const Face top = co.face(in.k[x], in.k_top[x], P[x], P[x + sz], 2);
    co.add_faces(f.bottom.at(x), top, 2, e);
    f.bottom.set(x, top);
  }
  return e;
}

// Cell x of a row: its faces and the cell's terms, into kept: the residual and the pseudo-step's
// arguments (kept.w holds the cell's pseudo-step switch). Outputs through pointers only: GCC (12)
// vectorises the row loop only when its body has no local struct (one returned or modified
// through a reference becomes an array the vectoriser cannot take) and no reduction beside the
// branches of the cell's arithmetic (the switches, m = 0 or 1).
template <int Dim, int N>
inline void step_inputs(const Coefficients& co, const RowInputs& in, const RowFaces& f,
                        const real* P, const real* old, const StepKept::Row& kept,
                        std::ptrdiff_t sy, std::ptrdiff_t sz, int x) {
  CellEval e = faces_of_cell<Dim>(co, in, f, P, sy, sz, x);
  co.add_cell<N>(old[x], P[x], kept.w[x], e);
  const pt::StepArguments s = co.step_arguments(e);
  kept.R[x] = e.R, kept.a[x] = s.a, kept.b[x] = s.b, kept.dt[x] = s.dt;
}

// Cell x of a row: the damped update of Pe and dPe/dtau with the fast pseudo-step from kept's
// residual and arguments, and what a redo with the large-a branch would need (into kept).
inline void advance_cell(float cfl, const real* P, real* v, real* out, const StepKept::Row& kept,
                         int x) {
  const pt::FloatStep st = pt::float_step(kept.a[x], kept.b[x], cfl);
  real vx = kept.v[x] = v[x];
  kept.damp[x] = st.damp;
  out[x] = pt::advance(P[x], kept.R[x], vx, pt::float_safe_step(st, kept.dt[x]));
  v[x] = vx;
}

// R of cell x of a row (the generic CellResidual's R: the same bits).
template <int Dim>
inline real residual(const Coefficients& co, const RowInputs& in, const RowFaces& f, const real* P,
                     real old, std::ptrdiff_t sy, std::ptrdiff_t sz, int x) {
  CellEval e = faces_of_cell<Dim>(co, in, f, P, sy, sz, x);
  co.add_compaction(old, P[x], e);
  return e.R;
}

// The update of the n cells of a row from offset o: x faces first, then each cell from its faces.
// The pseudo-steps skip optimal_step's large-a branch (a division in every lane): redo_large
// redoes the cells that need it from the values kept. Three loops (the pseudo-step's switch, the
// faces and step arguments, the step and update) instead of one: a cell's whole chain (exp,
// division, faces, the double division, float division and square root) was longer than the
// out-of-order window overlaps between vectors of cells; the same operations on the same values,
// so the same bits.
template <int Dim, int N>
SH_HOST_CLONES void update_row(const Coefficients& coef, const Fields& fields, std::ptrdiff_t o,
                               int n, const RowInputs& in_, const RowFaces& faces, StepKept& kept,
                               const Ahead& ahead) {
  const Coefficients co = coef;
  const Fields f = fields;
  const RowInputs in = in_;
  const RowFaces rf = faces;
  const real* P = f.Pe.p + o;
  const real* old = f.phi_old.p + o;
  real* v = f.dPedtau.p + o;
  real* out = f.Pe_new.p + o;
  const std::ptrdiff_t sy = f.Pe.sy, sz = f.Pe.sz;
  const StepKept::Row k = kept.row();
  faces_between(co, P - 1, in.k - 1, P, in.k, n + 1, 0, rf.x);
  prefetch_row(ahead.first, ahead.n, ahead.for_write);
#pragma omp simd
  for (int x = 0; x < n; ++x) k.w[x] = co.step_weakening(P[x]);
  prefetch_row(ahead.second, ahead.n, ahead.for_write);
#pragma omp simd
  for (int x = 0; x < n; ++x) step_inputs<Dim, N>(co, in, rf, P, old, k, sy, sz, x);
#pragma omp simd
  for (int x = 0; x < n; ++x) advance_cell(co.cfl, P, v, out, k, x);
}

// R of the n cells of a row from offset o into out[0 .. n) (the generic CellResidual's R: the
// same bits).
template <int Dim>
SH_HOST_CLONES void residual_row(const Coefficients& coef, const Fields& fields, std::ptrdiff_t o,
                                 int n, const RowInputs& in_, const RowFaces& faces, real* out) {
  const Coefficients co = coef;
  const RowInputs in = in_;
  const RowFaces rf = faces;
  const real* P = fields.Pe.p + o;
  const real* old = fields.phi_old.p + o;
  const std::ptrdiff_t sy = fields.Pe.sy, sz = fields.Pe.sz;
  faces_between(co, P - 1, in.k - 1, P, in.k, n + 1, 0, rf.x);
#pragma omp simd
  for (int x = 0; x < n; ++x) out[x] = residual<Dim>(co, in, rf, P, old[x], sy, sz, x);
}

// The largest of n values' |R| into b, nan set where some is NaN.
SH_HOST_CLONES void max_abs_into(const real* R, int n, Buffers& b) {
  int nan = 0;
  real m = -std::numeric_limits<real>::infinity();
#pragma omp simd reduction(| : nan) reduction(max : m)
  for (int x = 0; x < n; ++x) {
    const real a = fabs(R[x]);
    nan |= a != a;
    m = m > a ? m : a;
  }
  b.nan |= nan;
  b.max_abs = b.max_abs > m ? b.max_abs : m;
}

// A tile: rows j0 .. j1 - 1 marching through planes k0 .. k1 - 1, x from i0 (n cells).
struct Tile {
  int i0, n, j0, j1, k0, k1;
  int jj(int j) const { return j - j0 + 1; }  // a row's index in the kept planes
};

// phi and k of plane k into the kept plane w: the tile's rows and, beyond 1-D, one row on either
// side; each row with its x neighbours (gathered: one vector loop for all of a plane's).
template <int Dim, int N>
inline void porosity_plane(const Coefficients& co, const Fields& f, const Tile& t, int k,
                           Planes::Which w, Planes& p, RowEnds& ends) {
  const int rim = Dim >= 2 ? 1 : 0;
  int m = 0;
  for (int j = t.j0 - rim; j < t.j1 + rim; ++j) {
    const std::ptrdiff_t o = f.Pe.offset(t.i0, j, k);
    Ahead next;  // the next row's Pe and phi_old (with its x neighbours)
    if (j + 1 < t.j1 + rim)
      next = {f.Pe.p + o + f.Pe.sy - 1, f.phi_old.p + o + f.Pe.sy - 1, t.n + 2, false};
    porosity_row<N>(co, f.Pe.p + o, f.phi_old.p + o, t.n, p.phi(w, t.jj(j)), p.k(w, t.jj(j)), next);
    for (const std::ptrdiff_t x : {o - 1, o + t.n})
      ends.P[m] = f.Pe.p[x], ends.old[m] = f.phi_old.p[x], ++m;
  }
  porosity_row<N>(co, ends.P.data(), ends.old.data(), m, ends.phi.data(), ends.k.data());
  m = 0;
  for (int j = t.j0 - rim; j < t.j1 + rim; ++j)
    for (const int x : {-1, t.n})
      p.phi(w, t.jj(j))[x] = ends.phi[m], p.k(w, t.jj(j))[x] = ends.k[m], ++m;
}

// Before the tile's first plane k0: phi and k of plane k0 and, in 3-D, the bottom faces of the
// tile's rows (from plane k0 - 1's k, computed into the next plane's slot as scratch).
template <int Dim, int N>
void start_tile(const Coefficients& co, const Fields& f, const Tile& t, Buffers& b) {
  Planes& p = b.planes;
  porosity_plane<Dim, N>(co, f, t, t.k0, Planes::kThis, p, b.ends);
  if constexpr (Dim >= 3)
    for (int j = t.j0; j < t.j1; ++j) {
      const int jj = t.jj(j);
      const std::ptrdiff_t o = f.Pe.offset(t.i0, j, t.k0);
      porosity_row<N>(co, f.Pe.p + o - f.Pe.sz, f.phi_old.p + o - f.Pe.sz, t.n,
                      p.phi(Planes::kNext, jj), p.k(Planes::kNext, jj));
      faces_between(co, f.Pe.p + o - f.Pe.sz, p.k(Planes::kNext, jj), f.Pe.p + o,
                    p.k(Planes::kThis, jj), t.n, 2, b.fb.row(jj - 1));
    }
}

// Plane k of the tile: phi and k of plane k + 1 (3-D), then the tile's rows.
template <int Dim, int N, Pass What>
void update_plane(const Coefficients& co, const Fields& f, const Tile& t, int k, Buffers& b) {
  Planes& p = b.planes;
  if constexpr (Dim >= 3) porosity_plane<Dim, N>(co, f, t, k + 1, Planes::kNext, p, b.ends);
  const FaceRow fs = b.fs.row(0);
  if constexpr (Dim >= 2) {
    const std::ptrdiff_t o = f.Pe.offset(t.i0, t.j0, k);
    faces_between(co, f.Pe.p + o - f.Pe.sy, p.k(Planes::kThis, 0), f.Pe.p + o,
                  p.k(Planes::kThis, 1), t.n, 1, fs);
  }
  for (int j = t.j0; j < t.j1; ++j) {
    const int jj = t.jj(j);
    const RowInputs in{p.phi(Planes::kThis, jj), p.k(Planes::kThis, jj), p.k(Planes::kThis, jj + 1),
                       p.k(Planes::kNext, jj)};
    const RowFaces faces{b.fx.row(0), fs, b.fb.row(jj - 1)};
    const std::ptrdiff_t o = f.Pe.offset(t.i0, j, k);
    if constexpr (What == Pass::max_residual) {
      real* R = b.kept.R.data();  // scratch here
      residual_row<Dim>(co, f, o, t.n, in, faces, R);
      max_abs_into(R, t.n, b);
    } else if constexpr (What == Pass::residual_field) {
      residual_row<Dim>(co, f, o, t.n, in, faces, f.Pe_new.p + o);
    } else {
      Ahead next;  // the next row's dPe/dtau and Pe_new
      if (j + 1 < t.j1) next = {f.dPedtau.p + o + f.Pe.sy, f.Pe_new.p + o + f.Pe.sy, t.n, true};
      update_row<Dim, N>(co, f, o, t.n, in, faces, b.kept, next);
      redo_large(co, f, o, t.n, b.kept);
      fill_row_end_ghosts(f.ghosts, f.Pe_new.p + o, t.n);
    }
  }
}

template <int Dim, int N, Pass What>
void march(const Coefficients& co, const Fields& f, const Tile& t, Buffers& b) {
  start_tile<Dim, N>(co, f, t, b);
  for (int k = t.k0; k < t.k1; ++k) {
    update_plane<Dim, N, What>(co, f, t, k, b);
    b.planes.advance();
  }
}

// Rows per tile: the tile's kept planes (phi and k of two planes), its bottom faces (3 values)
// and the planes of Pe and phi_old read again a plane later (two each) take half the core's L2
// (the rest: the streams of dPe/dtau and Pe_new), so that each value comes from L3 or memory once
// per iteration. At least 2 rows, at most 64.
int tile_rows(int n) {
  const double row = double(n + 2) * sizeof(real) * (4 + 3 + 2 + 2);
  return std::clamp(static_cast<int>(0.5 * l2_cache_bytes() / row), 2, 64);
}

// Region r by every thread of the team, each its rows' tiles; returns the largest |R| (NaN where
// some |R| is NaN) of the residual pass.
template <int Dim, int N, Pass What>
real run(const Coefficients& co, const Fields& f, const Region& r) {
  real max_abs = -std::numeric_limits<real>::infinity();
  int nan = 0;
  if (r.empty()) return max_abs;
  const int n = r.hi.x - r.lo.x;
  const long long ny = r.hi.y - r.lo.y;
  const int ty = static_cast<int>(std::min<long long>(tile_rows(n), ny));
  for_each_thread_rows(ny * (r.hi.z - r.lo.z), [&](long long q0, long long q1) {
    if (q0 >= q1) return;
    Buffers b(n, ty);
    for_each_tile(r, q0, q1, ty, [&](int j0, int j1, int k0, int k1) {
      march<Dim, N, What>(co, f, {r.lo.x, n, j0, j1, k0, k1}, b);
    });
#pragma omp critical(hydromech_rows_residual)
    max_abs = max_abs > b.max_abs ? max_abs : b.max_abs, nan |= b.nan;
  });
  return nan ? std::numeric_limits<real>::quiet_NaN() : max_abs;
}

}  // namespace

template <int Dim, int N>
void iterate_rows(const Coefficients& co, const View& Pe, const View& phi_old, const View& Pe_new,
                  const View& dPedtau, const RowEndGhosts& ghosts, const Region& r) {
  RowEndGhosts g = ghosts;  // only the sides that r's rows end on
  if (r.lo.x != 0) g.lo.kind = GhostRule::keep;
  if (r.hi.x != g.n) g.hi.kind = GhostRule::keep;
  run<Dim, N, Pass::iterate>(co, {Pe, phi_old, Pe_new, dPedtau, g}, r);
}

template <int Dim, int N>
real max_abs_residual_rows(const Coefficients& co, const View& Pe, const View& phi_old,
                           const Region& r) {
  return run<Dim, N, Pass::max_residual>(co, {Pe, phi_old, {}, {}}, r);
}

template <int Dim, int N>
void residual_rows(const Coefficients& co, const View& Pe, const View& phi_old, const View& R,
                   const Region& r) {
  run<Dim, N, Pass::residual_field>(co, {Pe, phi_old, R, {}}, r);
}

#define STAGHORN_HYDROMECH_ROWS(Dim, N)                                                           \
  template void iterate_rows<Dim, N>(const Coefficients&, const View&, const View&, const View&,  \
                                     const View&, const RowEndGhosts&, const Region&);            \
  template real max_abs_residual_rows<Dim, N>(const Coefficients&, const View&, const View&,      \
                                              const Region&);                                     \
  template void residual_rows<Dim, N>(const Coefficients&, const View&, const View&, const View&, \
                                      const Region&);
STAGHORN_HYDROMECH_ROWS_EACH(STAGHORN_HYDROMECH_ROWS)
#undef STAGHORN_HYDROMECH_ROWS

}  // namespace staghorn::hydromech
