#pragma once
// What one cell adds to one stiff body's rigid-mode sums (docs/models/stokes.md, "Stiff
// inclusions"; rigid_body.hpp): the body's faces and rim among the cell's low faces, their lever
// arms about the body's centre, and the terms of the modes' Gram and pseudo-inertia matrices and of
// a velocity change's projection. Every term is the sum over the cell's faces on that body, axis
// by axis, so a pass over all bodies at once adds the same bits as a pass per body.

#include <array>
#include <cmath>

#include "core/decomposition.hpp"
#include "core/field.hpp"
#include "core/reduce_each.hpp"
#include "core/stencil.hpp"
#include "core/unroll.hpp"
#include "models/stokes/body_labels.hpp"

namespace staghorn::stokes {

using stencil::Off;

// The rigid modes on a face along axis q at lever arm r: translations k = 0..2 (e_k) and rotations
// k = 3..5 about axis a = k - 3 (e_a x r), component q.
SH_HD inline real mode(int k, int q, const real r[3]) {
  if (k < 3) return k == q ? 1 : 0;
  const int a = k - 3;
  return (a == (q + 1) % 3 ? r[(q + 2) % 3] : 0) - (a == (q + 2) % 3 ? r[(q + 1) % 3] : 0);
}

// One body as the terms see it: the label of its cells and the grid's origin minus its centre
// along each axis (0 on inactive axes).
struct BodyAt {
  real id;
  real base[3];
};

// Where the bodies' faces are and their pseudo-inertia; one body at a time, by its label.
struct BodyFaces {
  View label;   // body per cell, halo included; 0 outside every body
  View mu_max;  // the cells' pseudo-step viscosity: a face's is the larger of its two cells'
  Int3 offset;  // global index of local cell (0, 0, 0)
  real dx[3];   // spacing (0 on inactive axes)
  int dims;

  SH_HD Off stride(int axis) const { return axis == 0 ? 1 : (axis == 1 ? label.sy : label.sz); }
  // The low `axis` face of the cell at offset o lies on body `id`: a body cell beside it, and the
  // other cell in the body or in none (a face between two bodies belongs to neither: the shear
  // layer between them).
  SH_HD bool on_face(int axis, Off o, real id) const {
    const real a = label.p[o], b = label.p[o - stride(axis)];
    return (a == id && (b == id || b == 0)) || (b == id && a == 0);
  }
  // That face lies on the body's rim: one cell beside it in the body, the other not. A wall face
  // counts: it stays held while the body moves, as the faces outside a rim do. (It moves in no
  // mode the wall allows a body that its core touches: there it adds nothing.)
  SH_HD bool on_rim(int axis, Off o, real id) const {
    return (label.p[o] == id) != (label.p[o - stride(axis)] == id);
  }
  // The face's pseudo-step viscosity: its velocity moves by dtau/rho~ R = vdt / pseudo R.
  SH_HD real pseudo(int axis, Off o) const { return fmax(mu_max.p[o], mu_max.p[o - stride(axis)]); }
  // Position, relative to the body's centre, of the low `axis` face of cell (i, j, k), or of its
  // centre along the other axes; from the global index, so every rank computes the same bits.
  SH_HD real coordinate(const BodyAt& b, int a, int face_axis, const int idx[3]) const {
    const real half = a == face_axis ? 0 : real(0.5);
    return b.base[a] + (offset[a] + idx[a] + half) * dx[a];
  }
};

// The faces of `label`'s bodies on this block of `dec`, their pseudo-step viscosity from mu_max.
BodyFaces body_faces(const Decomposition& dec, const Field& label, const Field& mu_max);
// The centre of the body's box (0 on inactive axes): the point its rotations turn about.
std::array<real, 3> box_centre(const Grid& g, const StiffBody& body);
// The body `body` labelled `id` (its own id, or another label for the same cells).
BodyAt body_at(const Grid& g, const StiffBody& body, real id);
// The cells of the body's box this block owns (their low faces: one further on the high side).
Region owned_box(const Decomposition& dec, const Layout& layout, const StiffBody& body);

// Mode k has faces on a grid of `dims` axes: a translation along an active axis, or a rotation
// whose plane holds two active axes. The others' terms are exactly zero (2-D: modes 2, 3, 4).
SH_HD inline bool mode_exists(int k, int dims) {
  return k < 3 ? k < dims : (k - 3 + 1) % 3 < dims && (k - 3 + 2) % 3 < dims;
}

// One corrected body's faces among a listed cell's low faces: all that the correction's shift
// needs of the labels, gathered when the bodies are set (BodyFaces finds them in the labels of the
// cell and of its low neighbours), so that the shift reads one small record per cell.
struct BodyCell {
  Int3 cell;
  int packed = 0;  // 8 x the body's index, plus bit q where the cell's low q face is on the body
  SH_HD int body() const { return packed >> 3; }
  SH_HD bool on(int q) const { return packed >> q & 1; }
};

// The same with those faces' pseudo-step viscosity (each from its two cells' mu_max): all that the
// passes of the sums need of the labels and of mu_max.
struct BodyCellFaces : BodyCell {
  real pseudo[3] = {0, 0, 0};  // BodyFaces::pseudo of each face on the body, 0 for the others
};

// Per-cell terms of the sums over a body's faces (each cell contributes its low faces): with
// ll < 0, phi_kk . w dV (the change's component along mode kk, w the face's pseudo-viscosity if
// weighted, else 1); with ll >= 0, phi_kk . phi_ll over the body's faces (the modes' Gram matrix),
// or pseudo phi_kk . phi_ll over its rim (weighted: the pseudo-inertia).
struct ModeTerms {
  BodyFaces f;
  View v[3], v_old[3];

  SH_HD real term(const BodyAt& b, int kk, int ll, bool weighted, int i, int j, int kz) const {
    const int idx[3] = {i, j, kz};
    const Off o = f.label.offset(i, j, kz);
    real t = 0;
    for (int q = 0; q < f.dims; ++q) {
      if (ll >= 0 && weighted ? !f.on_rim(q, o, b.id) : !f.on_face(q, o, b.id)) continue;
      real r[3];
      for (int a = 0; a < 3; ++a) r[a] = f.coordinate(b, a, q, idx);
      const real other = ll < 0 ? v[q].p[o] - v_old[q].p[o] : mode(ll, q, r);
      t += mode(kk, q, r) * (weighted ? f.pseudo(q, o) * other : other);
    }
    return t;
  }
  // The largest |term| over every mode kk, and over every ll of the matrix (or the change): the
  // bound that sets the sums' quantum.
  SH_HD real bound(const BodyAt& b, bool matrix, bool weighted, int i, int j, int kz) const {
    real m = 0;
    for (int kk = 0; kk < 6; ++kk)
      for (int ll = matrix ? 0 : -1; ll < (matrix ? 6 : 0); ++ll)
        m = fmax(m, fabs(term(b, kk, ll, weighted, i, j, kz)));
    return m;
  }
  // The change's terms (ll < 0) along the six modes, of the listed cell c's faces on its body b,
  // with the arithmetic of term(). Unrolled (core/unroll.hpp): every index is known when
  // compiled, so the terms stay in registers.
  SH_HD Terms<6> change_terms(const BodyCellFaces& c, const BodyAt& b, bool weighted) const {
    const int idx[3] = {c.cell.x, c.cell.y, c.cell.z};
    const Off o = f.label.offset(c.cell.x, c.cell.y, c.cell.z);
    Terms<6> t;
    unroll<0, 6>([&](auto kk) { t.v[kk] = 0; });
    unroll<0, 3>([&](auto q) {
      if (q >= f.dims || !c.on(q)) return;
      real r[3];
      unroll<0, 3>([&](auto a) { r[a] = f.coordinate(b, a, q, idx); });
      const real other = v[q].p[o] - v_old[q].p[o];
      const real change = weighted ? c.pseudo[q] * other : other;
      unroll<0, 6>([&](auto kk) { t.v[kk] += mode(kk, q, r) * change; });
    });
    return t;
  }
  // The term rounded to a multiple of `quantum` (exact sums).
  SH_HD real rounded(const BodyAt& b, int kk, int ll, bool weighted, real quantum, int i, int j,
                     int kz) const {
    return rint(term(b, kk, ll, weighted, i, j, kz) / quantum) * quantum;
  }
};

}  // namespace staghorn::stokes
