// The CPU march of march.hpp: the row loops, the per-plane CPU clones and the OpenMP split of the
// region's rows into tiles.
#include "models/stokes/march.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "core/host_rows.hpp"

namespace staghorn::stokes {
namespace march {

// The values a tile keeps, each in a plane of rows: the tile's rows j0 .. j1 - 1 and one rim row
// on either side (row 0: j0 - 1), each of n + 2 cells (x = -1: the rim cell west of the region).
enum Kept {
  kSxx,  // total normal stresses of plane k
  kSyy,
  kSzz,
  kSzzBelow,  // of plane k - 1
  kTxy,       // shear stresses on the low edges of plane k
  kTxz,
  kTyz,
  kTxzAbove,  // of plane k + 1
  kTyzAbove,
  kKept
};

class Buffers {
 public:
  Buffers(int n, int rows)
      : width_(n + 2), plane_(std::size_t(width_) * (rows + 2)), data_(kKept * plane_) {
    for (int b = 0; b < kKept; ++b) slot_[b] = b;
  }
  // Cell x = 0 (the region's first) of row jj (0: the rim row below the tile) of a kept plane.
  real* row(Kept b, int jj) {
    return data_.data() + slot_[b] * plane_ + std::size_t(jj) * width_ + 1;
  }
  // Plane k + 1 becomes plane k: the kept planes of k become those of k - 1 (szz), those of k + 1
  // those of k (txz, tyz).
  void advance() {
    std::swap(slot_[kSzz], slot_[kSzzBelow]);
    std::swap(slot_[kTxz], slot_[kTxzAbove]);
    std::swap(slot_[kTyz], slot_[kTyzAbove]);
  }

 private:
  int width_;
  std::size_t plane_;
  std::vector<real> data_;
  int slot_[kKept];
};

// The row loops. Each takes its own copies of the iteration (ps) and of the output views: the
// compiler then knows that the stores cannot change them and keeps them in registers.

// P and the normal stresses of the n cells from offset o (Pseudo::P_new, Txx_new ...), their
// total stresses into sxx, syy, szz; stored into out with Store.
template <bool Store>
inline void cells(const Pseudo<3>& ps_, const State& out_, Off o, int n, real* sxx, real* syy,
                  real* szz) {
  const Pseudo<3> ps = ps_;
  const State out = out_;
#pragma omp simd
  for (int x = 0; x < n; ++x) {
    const Off q = o + x;
    const real P = ps.P_new(q), txx = ps.Txx_new(q), tyy = ps.Tyy_new(q), tzz = ps.Tzz_new(q);
    sxx[x] = txx - P;
    syy[x] = tyy - P;
    szz[x] = tzz - P;
    if constexpr (Store) {
      out.P.p[q] = P;
      out.Txx.p[q] = txx;
      out.Tyy.p[q] = tyy;
      out.Tzz.p[q] = tzz;
    }
  }
}

// One shear component on the low edges of the n cells from offset o into t (and out with Store).
enum Edge { kXy, kXz, kYz };
template <Edge E, bool Store>
inline void edges(const Pseudo<3>& ps_, const State& out_, Off o, int n, real* t) {
  const Pseudo<3> ps = ps_;
  real* const dst = E == kXy ? out_.Txy.p : E == kXz ? out_.Txz.p : out_.Tyz.p;
#pragma omp simd
  for (int x = 0; x < n; ++x) {
    const Off q = o + x;
    const real v = E == kXy ? ps.Txy_new(q) : E == kXz ? ps.Txz_new(q) : ps.Tyz_new(q);
    t[x] = v;
    if constexpr (Store) dst[q] = v;
  }
}
template <Edge E>
inline void edges(const Pseudo<3>& ps, const State& out, Off o, int n, real* t, bool store) {
  if (store) return edges<E, true>(ps, out, o, n, t);
  edges<E, false>(ps, out, o, n, t);
}

// The kept values a row of faces reads, at its first cell (x = 0); _s, _d: the row below in y, the
// plane below; _n, _u: the row above in y, the plane above.
struct FaceRows {
  const real *sxx, *syy, *syy_s, *szz, *szz_d, *txy, *txy_n, *txz, *txz_u, *tyz, *tyz_n, *tyz_u;
};

// The low-face velocities of the n cells from offset o (update_solid's), i0: the first cell's i;
// WY, WZ: the row's y and z faces are on a wall (template arguments: GCC does not vectorise a
// select on a loop-invariant bool).
template <bool WY, bool WZ>
inline void faces(const Pseudo<3>& ps_, const State& out_, Off o, int n, int i0,
                  const FaceRows& rows) {
  const Pseudo<3> ps = ps_;
  const State out = out_;
  const FaceRows f = rows;
  const Params& c = ps.c;
  const State& s = ps.s;
  const View& rho = ps.m.rho;
  const Off sy = s.P.sy, sz = s.P.sz;
  const int wall_x = c.wall_lo[0] ? -i0 : -1;  // the x with a face on the wall, if any
#pragma omp simd
  for (int x = 0; x < n; ++x) {
    const Off q = o + x;
    const bool wx = x == wall_x;
    const real Rx = momentum_x_of<3>(c, [&](int term, int high) {
      switch (term) {
        case kNormal:
          return f.sxx[x - 1 + high];
        case kShear1:
          return high ? f.txy_n[x] : f.txy[x];
        case kShear2:
          return high ? f.txz_u[x] : f.txz[x];
        default:
          return rho.p[q - 1 + high];
      }
    });
    out.Vx.p[q] = s.Vx.p[q] + (wx ? 0 : ps.vdt_face(q, 1) * Rx);
    const real Ry = momentum_y_of<3>(c, [&](int term, int high) {
      switch (term) {
        case kNormal:
          return high ? f.syy[x] : f.syy_s[x];
        case kShear1:
          return f.txy[x + high];
        case kShear2:
          return high ? f.tyz_u[x] : f.tyz[x];
        default:
          return rho.p[q - rho.sy + high * rho.sy];
      }
    });
    out.Vy.p[q] = s.Vy.p[q] + (WY ? 0 : ps.vdt_face(q, sy) * Ry);
    const real Rz = momentum_z_of(c, [&](int term, int high) {
      switch (term) {
        case kNormal:
          return high ? f.szz[x] : f.szz_d[x];
        case kShear1:
          return f.txz[x + high];
        case kShear2:
          return high ? f.tyz_n[x] : f.tyz[x];
        default:
          return rho.p[q - rho.sz + high * rho.sz];
      }
    });
    out.Vz.p[q] = s.Vz.p[q] + (WZ ? 0 : ps.vdt_face(q, sz) * Rz);
  }
}
inline void faces(const Pseudo<3>& ps, const State& out, Off o, int n, int i0, bool wy, bool wz,
                  const FaceRows& f) {
  if (wy)
    return wz ? faces<true, true>(ps, out, o, n, i0, f) : faces<true, false>(ps, out, o, n, i0, f);
  wz ? faces<false, true>(ps, out, o, n, i0, f) : faces<false, false>(ps, out, o, n, i0, f);
}

// A tile: rows j0 .. j1 - 1 marching through planes ka .. ke - 1 of region r.
struct Tile {
  Region r;
  int j0, j1, ka, ke;
  int n() const { return r.hi.x - r.lo.x; }
  int jj(int j) const { return j - j0 + 1; }  // a row's index in the buffers
};

// tau_xz and tau_yz on the low edges of plane k into the kept planes xz, yz: those of the tile's
// rows (x = 0 .. n: the faces' east neighbour) and tau_yz of the row above (x < n), stored where
// the tile owns them (its rows, x < n, with own_plane).
inline void z_edges(const Pseudo<3>& ps, const State& out, const Tile& t, int k, bool own_plane,
                    Buffers& b, Kept xz, Kept yz) {
  const int n = t.n();
  for (int j = t.j0; j < t.j1; ++j) {
    const Off o = ps.s.P.offset(t.r.lo.x, j, k);
    edges<kXz>(ps, out, o, n, b.row(xz, t.jj(j)), own_plane);
    edges<kXz, false>(ps, out, o + n, 1, b.row(xz, t.jj(j)) + n);
    edges<kYz>(ps, out, o, n, b.row(yz, t.jj(j)), own_plane);
  }
  edges<kYz, false>(ps, out, ps.s.P.offset(t.r.lo.x, t.j1, k), n, b.row(yz, t.jj(t.j1)));
}

// The plane functions inline every loop and operator they call, compiled for AVX-512, AVX2 and
// the baseline (SH_HOST_CLONES) with the same bits.
// Before the tile's first plane ka: the total szz of plane ka - 1 and the shear stresses tau_xz,
// tau_yz of plane ka (stored: the tile's own).
SH_HOST_CLONES void prologue(const Pseudo<3>& ps, const State& out, const Tile& t, Buffers& b) {
  const int n = t.n(), k = t.ka;
  for (int j = t.j0; j < t.j1; ++j) {
    const int jj = t.jj(j);
    // sxx and syy: scratch here (step 1 of plane ka fills them).
    cells<false>(ps, out, ps.s.P.offset(t.r.lo.x, j, k - 1), n, b.row(kSxx, jj), b.row(kSyy, jj),
                 b.row(kSzzBelow, jj));
  }
  z_edges(ps, out, t, k, true, b, kTxz, kTyz);
}

// Plane k of the tile (march.hpp, steps 1-3).
SH_HOST_CLONES void plane(const Pseudo<3>& ps, const State& out, const Tile& t, int k, Buffers& b) {
  const int n = t.n(), i0 = t.r.lo.x;
  const Params& c = ps.c;
  auto at = [&](int j, int kk) { return ps.s.P.offset(i0, j, kk); };
  // 1. The cells: the row below the tile (its syy), the west rim cell of each row (its sxx).
  const int below = t.j0 - 1;
  cells<false>(ps, out, at(below, k), n, b.row(kSxx, 0), b.row(kSyy, 0), b.row(kSzz, 0));
  for (int j = t.j0; j < t.j1; ++j) {
    const int jj = t.jj(j);
    real *sxx = b.row(kSxx, jj), *syy = b.row(kSyy, jj), *szz = b.row(kSzz, jj);
    cells<false>(ps, out, at(j, k) - 1, 1, sxx - 1, syy - 1, szz - 1);
    cells<true>(ps, out, at(j, k), n, sxx, syy, szz);
  }
  // 2. tau_xy of plane k (the east rim cell and the row above: not stored), tau_xz and tau_yz of
  // plane k + 1 (stored unless k + 1 is past the march).
  for (int j = t.j0; j < t.j1; ++j) {
    real* txy = b.row(kTxy, t.jj(j));
    edges<kXy, true>(ps, out, at(j, k), n, txy);
    edges<kXy, false>(ps, out, at(j, k) + n, 1, txy + n);
  }
  edges<kXy, false>(ps, out, at(t.j1, k), n, b.row(kTxy, t.jj(t.j1)));
  z_edges(ps, out, t, k + 1, k + 1 < t.ke, b, kTxzAbove, kTyzAbove);
  // 3. The faces.
  const bool wz = k == 0 && c.wall_lo[2];
  for (int j = t.j0; j < t.j1; ++j) {
    const int jj = t.jj(j);
    const FaceRows f{b.row(kSxx, jj),     b.row(kSyy, jj),      b.row(kSyy, jj - 1),
                     b.row(kSzz, jj),     b.row(kSzzBelow, jj), b.row(kTxy, jj),
                     b.row(kTxy, jj + 1), b.row(kTxz, jj),      b.row(kTxzAbove, jj),
                     b.row(kTyz, jj),     b.row(kTyz, jj + 1),  b.row(kTyzAbove, jj)};
    faces(ps, out, at(j, k), n, i0, j == 0 && c.wall_lo[1], wz, f);
  }
}

void run_tile(const Pseudo<3>& ps, const State& out, const Tile& t, Buffers& b) {
  prologue(ps, out, t, b);
  for (int k = t.ka; k < t.ke; ++k) {
    plane(ps, out, t, k, b);
    b.advance();
  }
}

// Rows per tile: the planes of a tile's rows that a step reads (13 arrays, two planes), the
// values it writes and keeps (19 planes) take about half the core's L2, so that plane k + 1's
// values, read again at the next plane, come from L2. The rims cost two rows of recomputed
// stresses per tile: at least 8 rows, at most 64.
int tile_rows(int n) {
  const double row = double(n + 2) * sizeof(real) * (2 * 13 + 10 + 9);
  return std::clamp(static_cast<int>(0.5 * l2_cache_bytes() / row), 8, 64);
}

// Rows ja .. jb - 1 of planes ka .. ke - 1, tile by tile.
void run_block(const Pseudo<3>& ps, const State& out, const Region& r, int ja, int jb, int ka,
               int ke, int ty, Buffers& b) {
  for (int j0 = ja; j0 < jb; j0 += ty) run_tile(ps, out, {r, j0, std::min(j0 + ty, jb), ka, ke}, b);
}

// Rows q0 .. q1 - 1 of region r, q = (k - lo.z) ny + (j - lo.y): the rows that schedule(static)
// of the (k, j) loop gives a thread (as core/memory.cpp's first touch places the pages). Whole
// planes among them march tile by tile; a partial plane at either end is a march of one plane.
void run_rows(const Pseudo<3>& ps, const State& out, const Region& r, long long q0, long long q1,
              int ty) {
  if (q0 >= q1) return;
  const long long ny = r.hi.y - r.lo.y;
  Buffers b(r.hi.x - r.lo.x, ty);
  auto block = [&](long long j0, long long j1, long long p0, long long p1) {
    run_block(ps, out, r, r.lo.y + int(j0), r.lo.y + int(j1), r.lo.z + int(p0), r.lo.z + int(p1),
              ty, b);
  };
  long long q = q0;
  if (q % ny) {  // the rest of a plane begun by the thread before
    const long long p = q / ny, end = std::min(q1, (p + 1) * ny);
    block(q - p * ny, end - p * ny, p, p + 1);
    q = end;
  }
  if (q >= q1) return;
  const long long p0 = q / ny, p1 = q1 / ny;
  if (p1 > p0) block(0, ny, p0, p1);
  if (q1 > p1 * ny) block(0, q1 - p1 * ny, p1, p1 + 1);
}

}  // namespace march

void run_march(const Pseudo<3>& ps, const State& out, const Region& r, int tile_rows) {
  if (r.empty()) return;
  const int ty = tile_rows > 0 ? tile_rows : march::tile_rows(r.hi.x - r.lo.x);
  const long long rows = static_cast<long long>(r.hi.y - r.lo.y) * (r.hi.z - r.lo.z);
  for_each_thread_rows(
      rows, [&](long long q0, long long q1) { march::run_rows(ps, out, r, q0, q1, ty); });
}

}  // namespace staghorn::stokes
