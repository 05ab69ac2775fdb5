#pragma once
// Staggered-grid operators for kernels, in the spirit of ParallelStencil's @d_xa / @av_xya: inline
// SH_HD functions of a View and a point, so that kernels read like the equations they discretise.
//
// Conventions (docs/architecture.md, "Fields, layouts, halos"): a cell-centred value at index i
// lives at x_i = (i + 1/2) dx, a staggered one (face, edge) at x_i = i dx, on the low side of its
// cell. So
//   - the `a` ("ahead") operators combine points i and i + 1: they land half a cell above i, e.g.
//     on the cell centre i from the faces i and i + 1 (div v), or on the face i + 1 from cells;
//   - the `b` ("behind") operators combine points i - 1 and i: they land half a cell below i, e.g.
//     on the face i from the cells i - 1 and i (grad P), or on the cell i - 1 from faces.
// Differences are undivided (the caller multiplies by 1/dx): a d_xa of a quadratic is exact at the
// midpoint once divided by dx, an average of a linear function is exact.
//
// Each operator has two forms: f(A, i, j, k) and f(A, o) with o = A.offset(i, j, k); all fields of
// one layout share offsets, so a kernel computes o once per point and reuses it in every field.

#include <cstddef>

#include "core/field.hpp"

namespace staghorn::stencil {

using Off = std::ptrdiff_t;

// Offsets of the neighbour along each axis (y and z from the View's strides).
SH_HD inline Off sx(const View&) { return 1; }
SH_HD inline Off sy(const View& A) { return A.sy; }
SH_HD inline Off sz(const View& A) { return A.sz; }

// Undivided differences.
SH_HD inline real d_xa(const View& A, Off o) { return A.p[o + 1] - A.p[o]; }
SH_HD inline real d_ya(const View& A, Off o) { return A.p[o + A.sy] - A.p[o]; }
SH_HD inline real d_za(const View& A, Off o) { return A.p[o + A.sz] - A.p[o]; }
SH_HD inline real d_xb(const View& A, Off o) { return A.p[o] - A.p[o - 1]; }
SH_HD inline real d_yb(const View& A, Off o) { return A.p[o] - A.p[o - A.sy]; }
SH_HD inline real d_zb(const View& A, Off o) { return A.p[o] - A.p[o - A.sz]; }

// Second differences centred on the point itself.
SH_HD inline real d2_x(const View& A, Off o) { return A.p[o + 1] - 2 * A.p[o] + A.p[o - 1]; }
SH_HD inline real d2_y(const View& A, Off o) { return A.p[o + A.sy] - 2 * A.p[o] + A.p[o - A.sy]; }
SH_HD inline real d2_z(const View& A, Off o) { return A.p[o + A.sz] - 2 * A.p[o] + A.p[o - A.sz]; }

// Two-point averages.
SH_HD inline real av_xa(const View& A, Off o) { return real(0.5) * (A.p[o] + A.p[o + 1]); }
SH_HD inline real av_ya(const View& A, Off o) { return real(0.5) * (A.p[o] + A.p[o + A.sy]); }
SH_HD inline real av_za(const View& A, Off o) { return real(0.5) * (A.p[o] + A.p[o + A.sz]); }
SH_HD inline real av_xb(const View& A, Off o) { return real(0.5) * (A.p[o - 1] + A.p[o]); }
SH_HD inline real av_yb(const View& A, Off o) { return real(0.5) * (A.p[o - A.sy] + A.p[o]); }
SH_HD inline real av_zb(const View& A, Off o) { return real(0.5) * (A.p[o - A.sz] + A.p[o]); }

// Four-point averages over the plane of two axes, landing on the edge below point o in both
// (cell centres to edge_xy at (i - 1/2, j - 1/2), ...) or above it (edges to the cell centre).
SH_HD inline real av4(const View& A, Off o, Off s1, Off s2) {
  return real(0.25) * ((A.p[o] + A.p[o - s1]) + (A.p[o - s2] + A.p[o - s1 - s2]));
}
SH_HD inline real av_xyb(const View& A, Off o) { return av4(A, o, 1, A.sy); }
SH_HD inline real av_xzb(const View& A, Off o) { return av4(A, o, 1, A.sz); }
SH_HD inline real av_yzb(const View& A, Off o) { return av4(A, o, A.sy, A.sz); }
SH_HD inline real av_xya(const View& A, Off o) { return av4(A, o + 1 + A.sy, 1, A.sy); }
SH_HD inline real av_xza(const View& A, Off o) { return av4(A, o + 1 + A.sz, 1, A.sz); }
SH_HD inline real av_yza(const View& A, Off o) { return av4(A, o + A.sy + A.sz, A.sy, A.sz); }

// Harmonic four-point averages (viscosity at edges: the weak material controls a sheared edge).
SH_HD inline real hav4(const View& A, Off o, Off s1, Off s2) {
  const real inv = (real(1) / A.p[o] + real(1) / A.p[o - s1]) +
                   (real(1) / A.p[o - s2] + real(1) / A.p[o - s1 - s2]);
  return real(4) / inv;
}
SH_HD inline real hav_xyb(const View& A, Off o) { return hav4(A, o, 1, A.sy); }
SH_HD inline real hav_xzb(const View& A, Off o) { return hav4(A, o, 1, A.sz); }
SH_HD inline real hav_yzb(const View& A, Off o) { return hav4(A, o, A.sy, A.sz); }

// Largest of the four points around an edge (as av_xyb ...).
SH_HD inline real max4(const View& A, Off o, Off s1, Off s2) {
  const real a = A.p[o] > A.p[o - s1] ? A.p[o] : A.p[o - s1];
  const real b = A.p[o - s2] > A.p[o - s1 - s2] ? A.p[o - s2] : A.p[o - s1 - s2];
  return a > b ? a : b;
}
SH_HD inline real max_xyb(const View& A, Off o) { return max4(A, o, 1, A.sy); }
SH_HD inline real max_xzb(const View& A, Off o) { return max4(A, o, 1, A.sz); }
SH_HD inline real max_yzb(const View& A, Off o) { return max4(A, o, A.sy, A.sz); }

// The same operators at (i, j, k).
#define STAGHORN_STENCIL_IJK(name) \
  SH_HD inline real name(const View& A, int i, int j, int k) { return name(A, A.offset(i, j, k)); }
STAGHORN_STENCIL_IJK(d_xa)
STAGHORN_STENCIL_IJK(d_ya)
STAGHORN_STENCIL_IJK(d_za)
STAGHORN_STENCIL_IJK(d_xb)
STAGHORN_STENCIL_IJK(d_yb)
STAGHORN_STENCIL_IJK(d_zb)
STAGHORN_STENCIL_IJK(d2_x)
STAGHORN_STENCIL_IJK(d2_y)
STAGHORN_STENCIL_IJK(d2_z)
STAGHORN_STENCIL_IJK(av_xa)
STAGHORN_STENCIL_IJK(av_ya)
STAGHORN_STENCIL_IJK(av_za)
STAGHORN_STENCIL_IJK(av_xb)
STAGHORN_STENCIL_IJK(av_yb)
STAGHORN_STENCIL_IJK(av_zb)
STAGHORN_STENCIL_IJK(av_xyb)
STAGHORN_STENCIL_IJK(av_xzb)
STAGHORN_STENCIL_IJK(av_yzb)
STAGHORN_STENCIL_IJK(av_xya)
STAGHORN_STENCIL_IJK(av_xza)
STAGHORN_STENCIL_IJK(av_yza)
STAGHORN_STENCIL_IJK(hav_xyb)
STAGHORN_STENCIL_IJK(hav_xzb)
STAGHORN_STENCIL_IJK(hav_yzb)
STAGHORN_STENCIL_IJK(max_xyb)
STAGHORN_STENCIL_IJK(max_xzb)
STAGHORN_STENCIL_IJK(max_yzb)
#undef STAGHORN_STENCIL_IJK

// Largest value over the 3 x 3 (x 3) neighbourhood of point o, in Dim dimensions (the local
// maximum viscosity of PT pseudo-steps).
template <int Dim>
SH_HD inline real max_around(const View& A, Off o) {
  real m = A.p[o];
  const int kz = Dim >= 3 ? 1 : 0, ky = Dim >= 2 ? 1 : 0;
  for (int c = -kz; c <= kz; ++c)
    for (int b = -ky; b <= ky; ++b)
      for (int a = -1; a <= 1; ++a) {
        const real v = A.p[o + a + b * A.sy + c * A.sz];
        m = v > m ? v : m;
      }
  return m;
}

}  // namespace staghorn::stencil
