#include "models/stokes/stiff_bodies/rigid_body.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/exact_sum.hpp"
#include "core/for_each.hpp"
#include "models/stokes/stiff_bodies/reduce_segments.hpp"
#include "core/unroll.hpp"

namespace staghorn::stokes {
namespace {

constexpr int kMatrixTerms = 21;  // the lower triangle of a symmetric 6 x 6 matrix

// The corrected bodies whose faces or rim the cell's low faces may hold: the segments (1 + body
// index) among the labels of the cell and of its low neighbours, each once.
struct CellBodies {
  int count = 0;
  real id[4];
  SH_HD CellBodies(const BodyFaces& f, int i, int j, int k) {
    const Off o = f.label.offset(i, j, k);
    add(f.label.p[o]);
    for (int q = 0; q < f.dims; ++q) add(f.label.p[o - f.stride(q)]);
  }
  SH_HD void add(real s) {
    if (s < 1) return;
    for (int n = 0; n < count; ++n)
      if (id[n] == s) return;
    id[count++] = s;
  }
};

// The body index of a segment label (>= 1).
SH_HD inline int index_of(real id) { return static_cast<int>(id) - 1; }

// The terms a cell adds to each body it touches: per_body(b, i, j, k), a Terms<K>, for body b.
template <class PerBody>
struct EachBody {
  BodyFaces f;
  PerBody per_body;
  template <class Out>
  SH_HD void operator()(int i, int j, int k, const Out& out) const {
    const CellBodies c(f, i, j, k);
    for (int n = 0; n < c.count; ++n) {
      const int b = index_of(c.id[n]);
      out.add(b, per_body(b, i, j, k));
    }
  }
};

// The quantum of body b's n-th sums (of `per_body` kinds) from their largest |term| over all ranks
// (bound[b * per_body + n], on the backend): taken in the pass of the sums, so that a run on one
// rank, whose bounds never leave the backend, needs no trip through the host for its quanta.
struct Quanta {
  const double* bound;
  const double* box_cells;  // per body: the cells of its box (global), terms per sum
  int per_body;
  SH_HD real operator()(int b, int n) const {
    return exact_quantum(bound[b * per_body + n], box_cells[b]);
  }
};

// The terms of a velocity change V - V_old along a listed cell's body's modes (weighted by the
// faces' pseudo-viscosity, or not): the volume form of the correction's sums.
struct WeightedChange {
  ModeTerms t;
  bool weighted;
  SH_HD int dims() const { return t.f.dims; }
  SH_HD Terms<6> terms(const BodyCellFaces& c, const BodyAt& b) const {
    return t.change_terms(c, b, weighted);
  }
};

// The stresses' terms of a surface cell (ForceTerms): the surface form of the same sums.
struct SurfaceForce {
  ForceTerms t;
  SH_HD int dims() const { return t.f.dims; }
  SH_HD Terms<6> terms(const ShellCell& c, const BodyAt& b) const { return t.terms(c, b); }
};

// A record's largest |term| on its body (the bound that sets the body's quantum).
template <class T>
struct TermBound {
  T t;
  const BodyAt* at;
  template <class Item, class Out>
  SH_HD void operator()(const Item& c, const Out& out) const {
    const int b = c.body();
    const Terms<6> terms = t.terms(c, at[b]);
    real m = 0;
    unroll<0, 6>([&](auto kk) { m = fmax(m, fabs(terms.v[kk])); });
    out.add(b, Terms<1>{{m}});
  }
};

// The terms of a pass of the change's sums, per body: its six sums, then the largest |term| of each
// record in units of the quantum, summed (bounding every partial sum of each of the six: they are
// all exact while it stays within kExactCount), and the same in units of kCoarse quanta.
constexpr int kChangeTerms = 8, kFine = 6, kCoarse = 7;
constexpr double kExactCount = 4503599627370496.0;  // 2^52, one bit below double's exact integers
constexpr real kCoarseInverse = real(1) / real(4294967296.0);  // 2^-32
// The quanta of a scale s are those of kScaleTerms terms of s (exact_quantum: a sum of s is below
// 2^48 of them), so the terms may grow 16 times over from one pass to the next before a pass's
// count exceeds kExactCount, and its sums may not be exact.
constexpr double kScaleTerms = 8;
constexpr double kSmallestScale = 0x1p-900, kLargestScale = 0x1p+900;

// The quanta of the change's sums, per body, from its entry in `bound`: on a first correction the
// largest |term| over all ranks (from a pass of its own; n = the cells of the body's box, as every
// sum of exact_sum.hpp), afterwards the scale the correction before it left (no pass of its own).
struct ChangeQuanta {
  const double* bound;
  const double* box_cells;
  bool from_max;
  SH_HD double terms(int b) const { return from_max ? box_cells[b] : kScaleTerms; }
  SH_HD real operator()(int b) const { return exact_quantum(bound[b], terms(b)); }
  SH_HD real inverse(int b) const { return exact_quantum_inverse(bound[b], terms(b)); }
};

// A record's six quantised terms along its body's modes, then their largest magnitude in quanta
// and in coarse quanta. The quantum is a power of two: a product by its inverse (exact, no
// division) is the quotient, to the bit, and cheaper.
template <class T>
struct TermSums {
  T t;
  const BodyAt* at;
  ChangeQuanta quanta;
  template <class Item, class Out>
  SH_HD void operator()(const Item& c, const Out& out) const {
    const int b = c.body();
    const Terms<6> terms = t.terms(c, at[b]);
    const real q = quanta(b), inverse = quanta.inverse(b);
    Terms<kChangeTerms> s;
    s.v[kFine] = s.v[kCoarse] = 0;
    unroll<0, 6>([&](auto kk) {
      const real n = mode_exists(kk, t.dims()) ? rint(terms.v[kk] * inverse) : 0;
      s.v[kk] = n * q;
      s.v[kFine] = fmax(s.v[kFine], fabs(n));
      s.v[kCoarse] = fmax(s.v[kCoarse], fabs(rint(n * kCoarseInverse)));
    });
    out.add(b, s);
  }
};

// A body's largest |term| of its Gram matrix, of its pseudo-inertia, and of its buoyancy.
struct MatrixBounds {
  ModeTerms t;
  const BodyAt* at;
  SH_HD Terms<3> operator()(int b, int i, int j, int k) const {
    real g = 0;
    for (int kk = 0; kk < 6; ++kk) g = fmax(g, fabs(t.gravity_term(at[b], kk, i, j, k)));
    return {{t.bound(at[b], true, false, i, j, k), t.bound(at[b], true, true, i, j, k), g}};
  }
};

// A body's quantised terms of the lower triangles of its Gram matrix (quanta(b, 0)), then of its
// pseudo-inertia (quanta(b, 1)), row by row, then of its buoyancy along each mode (quanta(b, 2)).
constexpr int kSetUpTerms = 2 * kMatrixTerms + 6;
struct MatrixSums {
  ModeTerms t;
  const BodyAt* at;
  Quanta quanta;  // three per body
  SH_HD Terms<kSetUpTerms> operator()(int b, int i, int j, int k) const {
    const real gram = quanta(b, 0), inertia = quanta(b, 1), buoyancy = quanta(b, 2);
    Terms<kSetUpTerms> s;
    int m = 0;
    for (int kk = 0; kk < 6; ++kk)
      for (int ll = 0; ll <= kk; ++ll, ++m) {
        s.v[m] = t.rounded(at[b], kk, ll, false, gram, i, j, k);
        s.v[kMatrixTerms + m] = t.rounded(at[b], kk, ll, true, inertia, i, j, k);
      }
    for (int kk = 0; kk < 6; ++kk)
      s.v[2 * kMatrixTerms + kk] = rint(t.gravity_term(at[b], kk, i, j, k) / buoyancy) * buoyancy;
    return s;
  }
};

// The reduce_segments functor of a per-body one.
template <class PerBody>
EachBody<PerBody> each_body(const BodyFaces& f, const PerBody& per_body) {
  return {f, per_body};
}

// A body's motion x = M s from its six mode sums s through its fit M. Explicit fmas in a fixed
// order: nvcc contracts a * b + c into fmas of its own choosing and the host compiler contracts
// none (-ffp-contract=off), so a plain dot product could round differently on the two; spelled
// out, the fit in a kernel and on the host (correction(), rigid_part()) give the same bits.
SH_HD inline RigidMotion motion_of(const ModeFit& M, const double* s) {
  double x[6];
  for (int k = 0; k < 6; ++k) {
    double acc = 0;
    for (int l = 0; l < 6; ++l) acc = std::fma(M.m[k][l], s[l], acc);
    x[k] = acc;
  }
  RigidMotion m;
  for (int a = 0; a < 3; ++a)
    m.U[a] = static_cast<real>(x[a]), m.w[a] = static_cast<real>(x[3 + a]);
  return m;
}

// A body's motion as six values (U, then w) in `to`.
SH_HD inline void store_motion(const RigidMotion& m, double* to) {
  for (int a = 0; a < 3; ++a) to[a] = m.U[a], to[3 + a] = m.w[a];
}

// After a pass of the change's sums, one body: its motion from its six sums `acc` (kChangeTerms)
// where every partial sum was exact, else none this time; and the scale of the next pass's quanta:
// the sum of its terms' magnitudes, their rounding included (so that it follows the terms down as
// well as up, and never reaches zero); from the coarse count where the fine one outgrew the sums'
// exact range. Every rank and backend settles the same exact sums with the same arithmetic (the
// products by quanta are exact, so a contraction into an fma rounds alike): the same bits.
// With `gravity` (the surface form: acc holds the stresses' sums), the sums are vdt (acc +
// gravity), each rounded once in that order.
SH_HD inline void settle(const ModeFit& fit, const double* acc, real q, double box_cells,
                         const double* gravity, real vdt, double* scale, double* motion) {
  double next;
  if (acc[kFine] <= kExactCount) {
    double s[6];
    for (int k = 0; k < 6; ++k) s[k] = gravity != nullptr ? (acc[k] + gravity[k]) * vdt : acc[k];
    store_motion(motion_of(fit, s), motion);
    next = acc[kFine] * q + box_cells * q / 2;
  } else {
    store_motion(RigidMotion{}, motion);
    const double coarse = q / kCoarseInverse;
    next = acc[kCoarse] <= kExactCount ? acc[kCoarse] * coarse + box_cells * coarse / 2
                                       : kExactCount * coarse;
  }
  *scale = next < kSmallestScale ? kSmallestScale : (next > kLargestScale ? kLargestScale : next);
}

// Every body settled (settle()) once after the sums' pass, by the block that finishes it
// (reduce_segments_into's ThenOnce), which also zeroes the accumulators for the next pass: the
// shift reads six values per record, and no launch of their own fits the motions or clears the
// sums.
struct SettleBodies {
  const ModeFit* fit;
  const double* box_cells;  // per body, the pass's terms per sum
  const double* gravity;    // six per body (the surface form), or null
  real vdt;
  double* bounds;  // the quanta's bounds of this pass; the next pass's scales, when settled
  double* acc;     // kChangeTerms per body
  double* motions;
  bool from_max;
  int count;
  SH_HD void operator()(int t, int threads) const {
    const ChangeQuanta quanta{bounds, box_cells, from_max};
    for (int b = t; b < count; b += threads) {
      double a[kChangeTerms];
      for (int k = 0; k < kChangeTerms; ++k) a[k] = read_combined(acc + kChangeTerms * b + k);
      settle(fit[b], a, quanta(b), box_cells[b], gravity != nullptr ? gravity + 6 * b : nullptr,
             vdt, bounds + b, motions + 6 * b);
      for (int k = 0; k < kChangeTerms; ++k) acc[kChangeTerms * b + k] = 0;
    }
  }
};

// v += U + w x r on each body's faces, the body's motion U, w from `motions` (six per body). With
// Walled (the records near a wall, on a block that sets its walls' ghosts itself), only on the
// faces the iterations update (those on a wall stay held), and the walls' ghosts that mirror each
// moved face too; the records far from every wall take the lean instance.
template <bool Walled>
struct Shift {
  BodyFaces f;
  View v[3];
  const BodyAt* at;
  const double* motions;
  WallGhosts walls;  // Walled only
  SH_HD void operator()(const BodyCell& c) const {
    const int idx[3] = {c.cell.x, c.cell.y, c.cell.z};
    const Off o = f.label.offset(c.cell.x, c.cell.y, c.cell.z);
    const int n = c.body();
    const double* mo = motions + 6 * n;
    RigidMotion m;
    for (int a = 0; a < 3; ++a)
      m.U[a] = static_cast<real>(mo[a]), m.w[a] = static_cast<real>(mo[3 + a]);
    // Unrolled (core/unroll.hpp): every index known when compiled, nothing in local memory.
    unroll<0, 3>([&](auto q) {
      if (q >= f.dims || !c.on(q)) return;
      if (Walled && !f.updated(q, idx)) return;
      real r[3];
      unroll<0, 3>([&](auto a) { r[a] = f.coordinate(at[n], a, q, idx); });
      real dv = m.U[q];
      unroll<0, 3>([&](auto a) { dv += m.w[a] * mode(3 + a, q, r); });
      const real moved = v[q].p[o] + dv;
      v[q].p[o] = moved;
      if (Walled) walls.store(v[q], q, idx, moved);
    });
  }
};

// Each record's pseudo-step viscosity of its faces on the body, from mu_max.
struct PseudoOf {
  BodyFaces f;
  SH_HD void operator()(BodyCellFaces& c) const {
    const Off o = f.label.offset(c.cell.x, c.cell.y, c.cell.z);
    for (int q = 0; q < f.dims; ++q) c.pseudo[q] = c.on(q) ? f.pseudo(q, o) : 0;
  }
};

// The first of the `count` ascending ids that is not below `id` (count if none).
SH_HD inline int first_not_below(const real* ids, int count, real id) {
  int lo = 0, hi = count;
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (ids[mid] < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// The segment field from the labels: 1 + the index of the body in `ids` (ascending), -1 for a
// label not among them, 0 for none.
struct SegmentOf {
  View label, segment;
  const real* ids;
  int count;
  SH_HD void operator()(int i, int j, int k) const {
    const real l = label(i, j, k);
    const int n = first_not_below(ids, count, l);
    segment(i, j, k) = l == 0 ? 0 : (n < count && ids[n] == l ? real(n + 1) : real(-1));
  }
};

// Solves the small symmetric positive definite system G x = b over the modes in `active`
// (Gaussian elimination: every rank does the same arithmetic on the same numbers).
std::array<double, 6> solve_modes(const ModeMatrix& G, const std::array<double, 6>& b,
                                  const std::vector<int>& active) {
  const int n = static_cast<int>(active.size());
  std::vector<std::vector<double>> A(n, std::vector<double>(n + 1));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) A[i][j] = G[active[i]][active[j]];
    A[i][n] = b[active[i]];
  }
  for (int c = 0; c < n; ++c)
    for (int i = c + 1; i < n; ++i) {
      const double f = A[i][c] / A[c][c];
      for (int j = c; j <= n; ++j) A[i][j] -= f * A[c][j];
    }
  std::array<double, 6> x{};
  for (int i = n - 1; i >= 0; --i) {
    double s = A[i][n];
    for (int j = i + 1; j < n; ++j) s -= A[i][j] * x[active[j]];
    x[active[i]] = s / A[i][i];
  }
  return x;
}

// The fit of the mode matrix G (ModeFit): G's inverse over the modes in `active`, column by column
// (solved for each unit right-hand side), times `scale`.
ModeFit fit_of(const ModeMatrix& G, const std::vector<int>& active, double scale) {
  ModeFit M;
  for (int c : active) {
    std::array<double, 6> e{};
    e[c] = 1;
    const std::array<double, 6> x = solve_modes(G, e, active);
    for (int r : active) M.m[r][c] = scale * x[r];
  }
  return M;
}

// Copies host values to the backend, at `to` (in stream order before the next pass).
template <class T>
void to_backend(const Exec& ex, T* to, const std::vector<T>& from) {
  copy_bytes(to, from.data(), from.size() * sizeof(T), ex.stream(Lane::inner));
}

// Copies host values into a buffer on the backend (in stream order before the next pass).
template <class T>
void upload(const Exec& ex, Buffer<T>& to, const std::vector<T>& from) {
  if (to.size() != from.size()) to = Buffer<T>(space_of(ex.backend()), from.size());
  to_backend(ex, to.data(), from);
}

std::vector<double> combine_ranks(const Comm& comm, const std::vector<double>& v, MaxOp) {
  return comm.max(v);
}
std::vector<double> combine_ranks(const Comm& comm, const std::vector<double>& v, SumOp) {
  return comm.sum(v);
}

// The bodies' terms of f (K per body) over the listed cells, reduced with Op on every rank: on
// the host of each (waits).
template <int K, class Op, class T, class F>
std::vector<double> over_ranks(const Exec& ex, const Comm& comm, const ItemList<T>& list, int count,
                               Op op, const F& f) {
  return combine_ranks(comm, reduce_segments<K>(ex, list, count, op, f), op);
}

Region union_of(const Region& a, const Region& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  Region u;
  for (int d = 0; d < 3; ++d) {
    u.lo[d] = std::min(a.lo[d], b.lo[d]);
    u.hi[d] = std::max(a.hi[d], b.hi[d]);
  }
  return u;
}

// The sides of the block (bit 2 a for the low one along axis a, 2 a + 1 for the high one) whose
// halo, sent by an exchange, or whose faces and ghosts, set by the walls, a shift of the cell's
// low faces could reach: those within the halo's width and one more.
unsigned sides_within_reach(const Layout& l, int dims, const Int3& cell) {
  unsigned sides = 0;
  for (int a = 0; a < dims; ++a) {
    const int margin = l.h[a] + 1;
    if (cell[a] < margin) sides |= 1u << (2 * a);
    if (cell[a] >= l.n[a] - margin) sides |= 1u << (2 * a + 1);
  }
  return sides;
}

// Per side of the block: the box of the records' cells within reach of it (sides_within_reach),
// widened by the halo and one more point on every side (a cell's low faces and the ghosts that
// mirror them), within the block's points; empty for a side no record reaches.
std::array<Region, 6> reach_of(const Layout& l, int dims,
                               const std::vector<BodyCellFaces>& records) {
  std::array<Region, 6> box{};
  for (const BodyCellFaces& r : records) {
    const unsigned sides = sides_within_reach(l, dims, r.cell);
    const Region cell{r.cell, {r.cell.x + 1, r.cell.y + 1, r.cell.z + 1}};
    for (int s = 0; s < 6; ++s)
      if (sides >> s & 1u) box[s] = union_of(box[s], cell);
  }
  const Region all = l.all();
  for (Region& b : box)
    for (int a = 0; !b.empty() && a < 3; ++a) {
      b.lo[a] = std::max(all.lo[a], b.lo[a] - (l.h[a] + 1));
      b.hi[a] = std::min(all.hi[a], b.hi[a] + (l.h[a] + 1));
    }
  return box;
}

}  // namespace

RigidBodies::RigidBodies(const Decomposition& dec, Exec ex, const Field& label,
                         const std::vector<CorrectedBody>& bodies, const Field& mu_max,
                         real mobility, Buoyancy buoyancy, Path path)
    : dec_(&dec),
      ex_(ex),
      mobility_(mobility),
      resident_(path == Path::automatic && dec.comm().size() == 1),
      buoyancy_(buoyancy) {
  const Grid& g = dec.grid();
  std::vector<double> box_cells;
  std::vector<BodyAt> at;
  Region boxes;  // the cells this block owns of all bodies' boxes
  for (const CorrectedBody& c : bodies) {
    Body b;
    b.stiff = c.body;
    b.modes = c.modes;
    b.at = body_at(g, c.body, real(bodies_.size() + 1));
    b.centre = box_centre(g, c.body);
    const Region owned = owned_box(dec, label.layout(), c.body);
    boxes = union_of(boxes, owned);
    box_cells.push_back(static_cast<double>(owned.size()));
    at.push_back(b.at);
    bodies_.push_back(b);
  }
  box_cells_host_ = dec.comm().sum(box_cells);
  upload(ex_, box_cells_, box_cells_host_);
  upload(ex_, at_, at);
  label_segments(label);
  faces_ = body_faces(dec, *segment_, mu_max, buoyancy.rho, buoyancy.g);
  set_matrices(list_cells(boxes));
  // The halo exchange after a correction is collective: every rank makes it if one must.
  near_edge_ = dec.comm().max(edge_sides_ != 0 ? 1.0 : 0.0) > 0;
  update_pseudo();
  // Modes without a face or a rim (a 2-D run's z translation, its rotations about x and y) or
  // that a wall forbids stay out of the system.
  for (Body& b : bodies_)
    for (int k = 0; k < 6; ++k)
      if (b.gram[k][k] > 0 && b.inertia[k][k] > 0 && (b.modes >> k & 1u)) b.active.push_back(k);
  set_fits();
  change_ = Buffer<double>(space_of(ex_.backend()), (1 + kChangeTerms + 6) * bodies_.size());
  passes_done_ = Buffer<unsigned>(space_of(ex_.backend()), 1);
  // The sums' accumulators start at zero; the pass that settles them zeroes them again.
  CUstream_st* stream = ex_.on_device() ? ex_.stream(Lane::inner) : nullptr;
  zero_bytes_async(change_.space(), change_.data(), change_.bytes(), stream);
  zero_bytes_async(passes_done_.space(), passes_done_.data(), passes_done_.bytes(), stream);
  ex_.synchronize();
}

std::vector<CorrectedBody> RigidBodies::corrected() const {
  std::vector<CorrectedBody> c;
  for (const Body& b : bodies_) c.push_back({b.stiff, b.modes});
  return c;
}

void RigidBodies::label_segments(const Field& label) {
  std::vector<real> ids;
  for (const Body& b : bodies_) {
    if (!ids.empty() && !(ids.back() < b.stiff.id))
      throw Error("stokes rigid bodies: body ids must ascend, got " + std::to_string(b.stiff.id) +
                  " after " + std::to_string(ids.back()));
    ids.push_back(b.stiff.id);
  }
  Buffer<real> table;
  upload(ex_, table, ids);
  segment_.emplace("body_segment", Location::cell, label.layout(), label.backend());
  // Halos included: the labels' are exchanged, and the faces on a block's low side read them.
  for_each(ex_, label.layout().all(),
           SegmentOf{label.view(), segment_->view(), table.data(), static_cast<int>(ids.size())});
  ex_.synchronize();  // before the table is freed
}

CellList RigidBodies::list_cells(const Region& boxes) {
  // The cells whose low faces may lie on a corrected body: in one, or beside one on their low side;
  // and each body's faces among them, as records.
  std::vector<real> segment = segment_->to_host();
  const Layout& l = segment_->layout();
  BodyFaces host = faces_;  // its labels on the host (on_face reads nothing else)
  host.label = View{segment.data() + l.origin(), l.stride_y(), l.stride_z()};
  std::vector<Int3> cells;
  std::vector<BodyCellFaces> records;
  for (int k = boxes.lo.z; k < boxes.hi.z; ++k)
    for (int j = boxes.lo.y; j < boxes.hi.y; ++j)
      for (int i = boxes.lo.x; i < boxes.hi.x; ++i) {
        const CellBodies near(host, i, j, k);
        if (near.count == 0) continue;
        cells.push_back({i, j, k});
        const Off o = host.label.offset(i, j, k);
        for (int n = 0; n < near.count; ++n) {
          BodyCellFaces r;
          r.cell = {i, j, k};
          for (int q = 0; q < host.dims; ++q)
            if (host.on_face(q, o, near.id[n])) r.packed |= 1 << q;
          if (r.packed == 0) continue;
          r.packed += 8 * index_of(near.id[n]);
          records.push_back(r);
        }
      }
  // Each body's records together, in cell order: a lane's records in a pass then mostly share a
  // body (reduce_segments.hpp, LaneRuns), and neighbouring lanes read neighbouring cells.
  std::stable_sort(
      records.begin(), records.end(),
      [](const BodyCellFaces& a, const BodyCellFaces& b) { return a.body() < b.body(); });
  reach_ = reach_of(l, host.dims, records);
  for (int s = 0; s < 6; ++s)
    if (!reach_[s].empty()) edge_sides_ |= 1u << s;
  records_ = ItemList<BodyCellFaces>(ex_, records);
  // The shift's records, those within reach of a side of the block apart (the ones that may move
  // a wall's faces and ghosts).
  std::vector<BodyCell> far, near;
  for (const BodyCellFaces& r : records)
    (sides_within_reach(l, host.dims, r.cell) != 0 ? near : far).push_back(r);
  shift_far_ = ItemList<BodyCell>(ex_, far);
  shift_near_ = ItemList<BodyCell>(ex_, near);
  list_surfaces(host, boxes);
  return CellList(ex_, cells);
}

void RigidBodies::list_surfaces(const BodyFaces& host, const Region& boxes) {
  // A stress belongs to the cell it sits in or whose low edge holds it: each to one cell of one
  // rank, so every rank count sums the same terms. The cells of this block, one further out on
  // each side of the boxes (the cells just outside a body hold its surface's stresses too), and
  // on a bounded high side the wall's edges (the low edges of the cells beyond it).
  const Layout& l = segment_->layout();
  Region r;
  for (int a = 0; a < 3; ++a) {
    const bool wall_hi = a < host.dims && !dec_->grid().periodic[a] && dec_->at_high(a);
    r.lo[a] = a < host.dims ? std::max(boxes.lo[a] - 1, 0) : 0;
    r.hi[a] = a < host.dims ? std::min(boxes.hi[a] + 1, l.n[a] + (wall_hi ? 1 : 0)) : 1;
  }
  std::vector<ShellCell> shells;
  std::vector<double> count(bodies_.size(), 0.0);
  const Region all = l.all();
  const Grid& grid = dec_->grid();
  // Whether the labels around the cell are all alike, and the cell away from every bounded edge
  // of the grid: then every stress it holds is in one body or in none (most cells; the full test
  // below costs a few hundred host cycles per cell).
  auto interior_alike = [&](int i, int j, int k) {
    const int at[3] = {i, j, k};
    for (int a = 0; a < host.dims; ++a) {
      const int g = dec_->offset()[a] + at[a];
      if (!grid.periodic[a] && (g < 1 || g > grid.n[a] - 2)) return false;
      if (at[a] - 1 < all.lo[a] || at[a] + 1 >= all.hi[a]) return false;
    }
    // The cells beside the faces around it: itself, its six neighbours, and the three below it
    // along two axes at once.
    const real* p = host.label.p + host.label.offset(i, j, k);
    const Off sx = 1, sy = host.label.sy, sz = host.dims == 3 ? host.label.sz : 0;
    const real id = p[0];
    for (const Off o : {-sx, sx, -sy, sy, -sz, sz, -sx - sy, -sx - sz, -sy - sz})
      if (p[o] != id) return false;
    return true;
  };
  for (int k = r.lo.z; k < r.hi.z; ++k)
    for (int j = r.lo.y; j < r.hi.y; ++j)
      for (int i = r.lo.x; i < r.hi.x; ++i) {
        if (interior_alike(i, j, k)) continue;
        // The bodies of the faces around the cell that the iterations update.
        real ids[2 * kShellFaces];
        int n = 0;
        for (int f = 0; f < kShellFaces; ++f) {
          const ShellFace sf = shell_face(f);
          const int idx[3] = {i + sf.di, j + sf.dj, k + sf.dk};
          if (sf.axis >= host.dims || !host.updated(sf.axis, idx)) continue;
          const Off o = host.label.offset(idx[0], idx[1], idx[2]);
          for (const real id : {host.label.p[o], host.label.p[o - host.stride(sf.axis)]})
            if (id >= 1 && std::find(ids, ids + n, id) == ids + n) ids[n++] = id;
        }
        std::sort(ids, ids + n);
        for (int m = 0; m < n; ++m) {
          const int bits = shell_faces(host, i, j, k, ids[m]);
          if (!at_surface(bits, host.dims)) continue;
          const int b = index_of(ids[m]);
          shells.push_back({{i, j, k}, bits + 4096 * b});
          count[b] += 1;
        }
      }
  std::stable_sort(shells.begin(), shells.end(),
                   [](const ShellCell& a, const ShellCell& b) { return a.body() < b.body(); });
  shells_ = ItemList<ShellCell>(ex_, shells);
  shell_cells_host_ = dec_->comm().sum(count);
  upload(ex_, shell_cells_, shell_cells_host_);
}

void RigidBodies::update_pseudo() { for_each_item(ex_, records_, PseudoOf{faces_}); }

void RigidBodies::set_matrices(const CellList& cells) {
  // The modes' Gram matrix over the faces and their pseudo-inertia over the rim: exact sums of the
  // geometry and the viscosity.
  const int count = static_cast<int>(bodies_.size());
  const ModeTerms t{faces_, {}, {}};
  Buffer<double> bounds;
  upload(ex_, bounds,
         over_ranks<3>(ex_, dec_->comm(), cells, count, MaxOp{},
                       each_body(faces_, MatrixBounds{t, at_.data()})));
  const std::vector<double> sums = over_ranks<kSetUpTerms>(
      ex_, dec_->comm(), cells, count, SumOp{},
      each_body(faces_, MatrixSums{t, at_.data(), Quanta{bounds.data(), box_cells_.data(), 3}}));
  gravity_host_.assign(6 * bodies_.size(), 0.0);
  for (int b = 0; b < count; ++b) {
    const double* s = &sums[static_cast<std::size_t>(b) * kSetUpTerms];
    for (int k = 0; k < 6; ++k) gravity_host_[6 * b + k] = s[2 * kMatrixTerms + k];
    int m = 0;
    for (int k = 0; k < 6; ++k)
      for (int l = 0; l <= k; ++l, ++m) {
        bodies_[b].gram[k][l] = bodies_[b].gram[l][k] = s[m];
        bodies_[b].inertia[k][l] = bodies_[b].inertia[l][k] = s[kMatrixTerms + m];
      }
  }
  upload(ex_, gravity_, gravity_host_);
}

void RigidBodies::set_fits() {
  // Unweighted: the least-squares fit; weighted: the rim's pseudo-inertia takes the net force and
  // torque (vdt times them: the velocity change times the faces' pseudo-viscosity), and the
  // mobility scales the motion.
  std::vector<ModeFit> correction;
  for (Body& b : bodies_) {
    b.rigid_fit = fit_of(b.gram, b.active, 1);
    b.correction_fit = fit_of(b.inertia, b.active, mobility_);
    correction.push_back(b.correction_fit);
  }
  upload(ex_, correction_fits_, correction);
}

ModeTerms RigidBodies::change_terms(const std::array<Field, 3>& V,
                                    const std::array<Field, 3>& V_old) const {
  return {faces_,
          {V[0].view(), V[1].view(), V[2].view()},
          {V_old[0].view(), V_old[1].view(), V_old[2].view()}};
}

template <class T, class Item>
std::vector<double> RigidBodies::exact_sums(const ItemList<Item>& list, const T& t,
                                            const Buffer<double>& terms) const {
  const int count = static_cast<int>(bodies_.size());
  Buffer<double> bound;  // not bounds(): the corrections' scales stay as they are
  upload(ex_, bound,
         over_ranks<1>(ex_, dec_->comm(), list, count, MaxOp{}, TermBound<T>{t, at_.data()}));
  const TermSums<T> sum{t, at_.data(), ChangeQuanta{bound.data(), terms.data(), true}};
  const std::vector<double> acc =
      over_ranks<kChangeTerms>(ex_, dec_->comm(), list, count, SumOp{}, sum);
  std::vector<double> s(6 * bodies_.size());
  for (std::size_t b = 0; b < bodies_.size(); ++b)
    for (int k = 0; k < 6; ++k) s[6 * b + k] = acc[kChangeTerms * b + k];
  return s;
}

template <class T, class Item>
void RigidBodies::correction_motions(const ItemList<Item>& list, const T& t,
                                     const std::vector<double>& terms,
                                     const Buffer<double>& terms_on_backend, bool surface,
                                     real vdt) const {
  const int count = static_cast<int>(bodies_.size());
  // The first correction takes its quanta from a pass of the bounds; every later one from the
  // scales that the one before it left (settle()).
  const bool from_max = !primed_;
  primed_ = true;
  const TermBound<T> bound{t, at_.data()};
  const TermSums<T> sum{t, at_.data(), ChangeQuanta{bounds(), terms_on_backend.data(), from_max}};
  if (resident_) {
    if (from_max) {  // zero: the identity of the maximum of magnitudes
      zero_bytes_async(change_.space(), bounds(), count * sizeof(double), ex_.stream(Lane::inner));
      reduce_segments_into<1>(ex_, list, count, MaxOp{}, bound, bounds());
    }
    reduce_segments_into<kChangeTerms>(
        ex_, list, count, SumOp{}, sum, sums(),
        ThenOnce<SettleBodies>{
            {correction_fits_.data(), terms_on_backend.data(), surface ? gravity_.data() : nullptr,
             vdt, bounds(), sums(), motions(), from_max, count},
            passes_done_.data()});
    return;
  }
  if (from_max) {
    scales_ = over_ranks<1>(ex_, dec_->comm(), list, count, MaxOp{}, bound);
    to_backend(ex_, bounds(), scales_);
  }
  const std::vector<double> acc =
      over_ranks<kChangeTerms>(ex_, dec_->comm(), list, count, SumOp{}, sum);
  // The backend's settling, on the host, of all ranks' sums: the same bits.
  const ChangeQuanta quanta{scales_.data(), terms.data(), from_max};
  std::vector<double> m(6 * bodies_.size());
  for (int b = 0; b < count; ++b) {
    const real q = quanta(b);
    settle(bodies_[b].correction_fit, &acc[kChangeTerms * b], q, terms[b],
           surface ? &gravity_host_[6 * b] : nullptr, vdt, &scales_[b], &m[6 * b]);
  }
  to_backend(ex_, motions(), m);
  to_backend(ex_, bounds(), scales_);
}

std::vector<std::array<double, 6>> RigidBodies::mode_sums(const std::array<Field, 3>& V,
                                                          const std::array<Field, 3>& V_old,
                                                          bool weighted) const {
  const std::vector<double> sums =
      exact_sums(records_, WeightedChange{change_terms(V, V_old), weighted}, box_cells_);
  std::vector<std::array<double, 6>> out(bodies_.size());
  for (std::size_t b = 0; b < out.size(); ++b)
    for (int k = 0; k < 6; ++k) out[b][k] = sums[6 * b + k];
  return out;
}

std::vector<std::array<double, 6>> RigidBodies::force_sums(const BodyStresses& stresses) const {
  const std::vector<double> sums =
      exact_sums(shells_, SurfaceForce{{faces_, stresses}}, shell_cells_);
  std::vector<std::array<double, 6>> out(bodies_.size());
  for (std::size_t b = 0; b < out.size(); ++b)
    for (int k = 0; k < 6; ++k)
      out[b][k] = (sums[6 * b + k] + gravity_host_[6 * b + k]) * stresses.vdt;
  return out;
}

std::vector<RigidMotion> RigidBodies::fits(const std::array<Field, 3>& V,
                                           const std::array<Field, 3>& V_old, bool weighted) const {
  const std::vector<std::array<double, 6>> sums = mode_sums(V, V_old, weighted);
  std::vector<RigidMotion> m;
  for (std::size_t b = 0; b < bodies_.size(); ++b) {
    const Body& body = bodies_[b];
    m.push_back(motion_of(weighted ? body.correction_fit : body.rigid_fit, sums[b].data()));
  }
  return m;
}

std::vector<RigidMotion> RigidBodies::rigid_part(const std::array<Field, 3>& V,
                                                 const std::array<Field, 3>& V_old) const {
  return fits(V, V_old, false);
}

std::vector<RigidMotion> RigidBodies::correction(const std::array<Field, 3>& V,
                                                 const std::array<Field, 3>& V_old) const {
  return fits(V, V_old, true);
}

void RigidBodies::correct(std::array<Field, 3>& V, const std::array<Field, 3>& V_old) const {
  if (empty()) return;
  correction_motions(records_, WeightedChange{change_terms(V, V_old), true}, box_cells_host_,
                     box_cells_, false, 1);
  shift(V, nullptr);
}

bool RigidBodies::correct(std::array<Field, 3>& V, const BodyStresses& stresses,
                          const WallGhosts& walls, Lane shift_after) const {
  if (empty()) return true;
  correction_motions(shells_, SurfaceForce{{faces_, stresses}}, shell_cells_host_, shell_cells_,
                     true, stresses.vdt);
  ex_.order(shift_after, Lane::inner);
  // On one rank whose every side within the shift's reach is a wall, the shift sets the ghosts it
  // changes (no halo to exchange, no fill after it).
  bool ghosts = dec_->comm().size() == 1;
  for (int side = 0; side < 6; ++side)
    if (edge_sides_ >> side & 1u) ghosts = ghosts && walls.on[side];
  shift(V, ghosts ? &walls : nullptr);
  return ghosts || !near_edge_;
}

void RigidBodies::shift(std::array<Field, 3>& V, const WallGhosts* walls) const {
  const Shift<false> lean{
      faces_, {V[0].view(), V[1].view(), V[2].view()}, at_.data(), motions(), {}};
  if (walls == nullptr) {
    for_each_item(ex_, shift_far_, lean);
    for_each_item(ex_, shift_near_, lean);
    return;
  }
  // One launch: the few records near a wall beside the many far from every side.
  for_each_item_both(
      ex_, shift_near_,
      Shift<true>{lean.f, {lean.v[0], lean.v[1], lean.v[2]}, lean.at, lean.motions, *walls},
      shift_far_, lean);
}

}  // namespace staghorn::stokes
