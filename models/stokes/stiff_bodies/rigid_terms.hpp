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
#include "models/stokes/stiff_bodies/body_labels.hpp"

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
  Int3 cells;       // the global grid's cells per axis
  int periodic[3];  // per axis
  View rho;         // the buoyancy's density per cell
  real g[3];        // gravity

  // The low `axis` face of local cell idx is an unknown of the iterations: inside the global grid
  // along every axis, and not on a wall (faces 0 and n of a bounded axis keep their values).
  SH_HD bool updated(int axis, const int idx[3]) const {
    for (int a = 0; a < dims; ++a) {
      if (periodic[a]) continue;
      const int n = offset[a] + idx[a];
      if (a == axis ? (n < 1 || n > cells[a] - 1) : (n < 0 || n > cells[a] - 1)) return false;
    }
    return true;
  }

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
  // Component q of mode k on the low q face of local cell idx.
  SH_HD real mode_on(const BodyAt& b, int k, int q, const int idx[3]) const {
    real r[3];
    for (int a = 0; a < 3; ++a) r[a] = coordinate(b, a, q, idx);
    return mode(k, q, r);
  }
};

// The faces of `label`'s bodies on this block of `dec`, their pseudo-step viscosity from mu_max,
// the buoyancy from rho and g (none without rho).
BodyFaces body_faces(const Decomposition& dec, const Field& label, const Field& mu_max,
                     const Field* rho = nullptr, const std::array<real, 3>& g = {0, 0, 0});
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
  // The buoyancy's term along mode kk: phi_kk . rho g over the cell's low faces on the body that
  // the iterations update (the residual's rho g, momentum_x_of ...: its density averaged from
  // the cells below and above).
  SH_HD real gravity_term(const BodyAt& b, int kk, int i, int j, int kz) const {
    if (f.rho.p == nullptr) return 0;  // no buoyancy given
    const int idx[3] = {i, j, kz};
    const Off o = f.label.offset(i, j, kz);
    real t = 0;
    for (int q = 0; q < f.dims; ++q) {
      if (!f.updated(q, idx) || !f.on_face(q, o, b.id)) continue;
      const real rho = real(0.5) * (f.rho.p[o - f.stride(q)] + f.rho.p[o]);
      t += f.mode_on(b, kk, q, idx) * (f.g[q] * rho);
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

// The net force on a body from the stresses at its surface (docs/models/stokes.md, "The force
// from the surface"). Summed over a body's faces B, the momentum residual's stress differences
// cancel in pairs wherever both faces that hold a stress are in B (for the rotations too: the
// shear stress is one value per edge in both of its equations), so
//   sum over B of phi_k . R = sum over the stresses s beside B's edge of C_sk sigma_s + G_k,
// C_sk = sum over the faces f of B whose residual holds s of (+-1 / spacing) phi_k(f), and G_k the
// buoyancy's sum over B (constant). A pass over the cells at the surface (one record per cell and
// body, ShellCell) then gives what a pass over every face of the body gives (R times vdt is the
// face's velocity change times its pseudo-viscosity: the correction's sums).
//
// The faces around a cell whose residuals hold its stresses (its normal stresses and the shear
// stresses of its low edges), as bits of ShellCell::packed: its low faces (0-2) and high faces
// (3-5); beside the xy edge, the x face of the cell below along y (6) and the y face of the cell
// below along x (7); beside the xz edge 8 (x face, z below) and 9 (z face, x below); beside the yz
// edge 10 (y face, z below) and 11 (z face, y below).
struct ShellFace {
  int axis, di, dj, dk;  // the face's axis, its cell's offset from the record's cell
};
SH_HD constexpr ShellFace shell_face(int f) {
  const ShellFace faces[12] = {{0, 0, 0, 0},  {1, 0, 0, 0},  {2, 0, 0, 0},  {0, 1, 0, 0},
                               {1, 0, 1, 0},  {2, 0, 0, 1},  {0, 0, -1, 0}, {1, -1, 0, 0},
                               {0, 0, 0, -1}, {2, -1, 0, 0}, {1, 0, 0, -1}, {2, 0, -1, 0}};
  return faces[f];
}
constexpr int kShellFaces = 12;

// Per stress of a cell (0-2: the normal stresses along x, y, z; 3-5: tau_xy, tau_xz, tau_yz of its
// low edges), the faces whose residuals hold it: the n-th face, the sign of its coefficient and
// the axis whose spacing divides it (momentum_x_of ...: a stress above the face enters with +,
// below with -). Normal stresses have two faces, shear stresses four.
struct ShellTerm {
  int face, sign, along;
};
SH_HD constexpr int shell_term_count(int s) { return s < 3 ? 2 : 4; }
SH_HD constexpr ShellTerm shell_term(int s, int n) {
  // tau_xy: the x faces' d/dy, the y faces' d/dx; tau_xz, tau_yz alike
  const ShellTerm terms[6][4] = {{{0, 1, 0}, {3, -1, 0}, {}, {}},
                                 {{1, 1, 1}, {4, -1, 1}, {}, {}},
                                 {{2, 1, 2}, {5, -1, 2}, {}, {}},
                                 {{0, -1, 1}, {6, 1, 1}, {1, -1, 0}, {7, 1, 0}},
                                 {{0, -1, 2}, {8, 1, 2}, {2, -1, 0}, {9, 1, 0}},
                                 {{1, -1, 2}, {10, 1, 2}, {2, -1, 1}, {11, 1, 1}}};
  return terms[s][n];
}
// Stress s exists on a grid of `dims` axes.
SH_HD constexpr bool shell_stress_exists(int s, int dims) {
  return s < 3 ? s < dims : (dims == 3 || s == 3);
}

// Which of the faces around local cell (i, j, k) (bits as above) are faces of body `id` that the
// iterations update.
SH_HD inline int shell_faces(const BodyFaces& f, int i, int j, int k, real id) {
  int bits = 0;
  for (int n = 0; n < kShellFaces; ++n) {
    const ShellFace sf = shell_face(n);
    if (sf.axis >= f.dims) continue;
    const int idx[3] = {i + sf.di, j + sf.dj, k + sf.dk};
    if (f.updated(sf.axis, idx) && f.on_face(sf.axis, f.label.offset(idx[0], idx[1], idx[2]), id))
      bits |= 1 << n;
  }
  return bits;
}
// Stress s of the cell is held by some of its faces in the body (bits as above) and not by all: its
// coefficient is not zero (where all or none are, the stress cancels or is absent).
SH_HD constexpr bool partly_held(int bits, int s) {
  int in = 0;
  for (int n = 0; n < shell_term_count(s); ++n) in += bits >> shell_term(s, n).face & 1;
  return in != 0 && in != shell_term_count(s);
}
// Some stress of the cell is partly held: the cell is at the body's surface.
SH_HD inline bool at_surface(int bits, int dims) {
  for (int s = 0; s < 6; ++s)
    if (shell_stress_exists(s, dims) && partly_held(bits, s)) return true;
  return false;
}

// A cell at a body's surface: its cell, 4096 x the body's index plus its shell_faces().
struct ShellCell {
  Int3 cell;
  int packed = 0;
  SH_HD int body() const { return packed >> 12; }
  SH_HD bool in(int face) const { return packed >> face & 1; }
};

// The stresses whose residual moves the bodies (an iteration's new P and tau: xx, yy, zz, xy, xz,
// yz) and the velocities' pseudo-step scale vdt (a face's change is vdt / its pseudo-viscosity
// times its residual).
struct BodyStresses {
  View P, T[6];
  real vdt = 0;
  real rd[3] = {1, 1, 1};  // 1 / spacing, as the iterations take it (Params)
};

// A surface cell's terms of the six mode sums of its body's stresses, sum over its stresses of
// C_sk sigma_s (before vdt), each stress's faces in the order of shell_term(), the stresses in
// order. Unrolled: every index known when compiled.
struct ForceTerms {
  BodyFaces f;
  BodyStresses st;
  SH_HD real stress(int s, Off o) const { return s < 3 ? st.T[s].p[o] - st.P.p[o] : st.T[s].p[o]; }
  SH_HD Terms<6> terms(const ShellCell& c, const BodyAt& b) const {
    const int idx[3] = {c.cell.x, c.cell.y, c.cell.z};
    const Off o = f.label.offset(c.cell.x, c.cell.y, c.cell.z);
    Terms<6> t;
    unroll<0, 6>([&](auto k) { t.v[k] = 0; });
    unroll<0, 6>([&](auto s_) {
      constexpr int s = decltype(s_)::value, count = shell_term_count(s);
      if (!shell_stress_exists(s, f.dims) || !partly_held(c.packed, s)) return;
      const real sigma = stress(s, o);
      unroll<0, count>([&](auto n) {
        constexpr ShellTerm term = shell_term(s, decltype(n)::value);
        if (!c.in(term.face)) return;
        constexpr ShellFace sf = shell_face(term.face);
        const int at[3] = {idx[0] + sf.di, idx[1] + sf.dj, idx[2] + sf.dk};
        const real held = term.sign * (sigma * st.rd[term.along]);
        unroll<0, 6>([&](auto k) { t.v[k] += f.mode_on(b, k, sf.axis, at) * held; });
      });
    });
    return t;
  }
};

}  // namespace staghorn::stokes
