#pragma once
// Rigid-mode correction of a stiff body (docs/models/stokes.md, "Stiff inclusions").
//
// The pseudo-steps of the PT iterations come from the largest viscosity around each point, so a
// body mu_i / mu_m times stiffer than its matrix has a pseudo-inertia mu_i / mu_m times the
// matrix's. Its deformation is stiff too, and relaxes at the matrix's pace; its rigid motion
// (translation, rotation) is resisted only by the soft matrix around it, and relaxes mu_i / mu_m
// times slower than anything else. After each iteration this class takes the momentum residual on
// the body's faces (the velocity change times the face's pseudo-inertia), i.e. the net force and
// torque on the body, and moves the body rigidly with the pseudo-inertia of its rim alone (the
// faces between it and the rest, each at its own stable pseudo-step): the rigid motion x with
// I x = sum over the body of phi (rho~ dV), I the rim's pseudo-inertia tensor. Only the rim
// resists a rigid motion, so the body's rigid modes then relax at the rate of its surroundings;
// its deformation keeps the stable local pseudo-steps, and the fixed point is unchanged (the
// correction vanishes with R).
// The sums are exact (every term rounded to a power-of-two quantum that no partial sum can
// outgrow), so any rank count, reduction order and backend gives the same bits.

#include <array>
#include <vector>

#include "core/backend.hpp"
#include "core/decomposition.hpp"
#include "core/field.hpp"
#include "core/stencil.hpp"
#include "models/stokes/body_labels.hpp"

namespace staghorn::stokes {

using stencil::Off;

// Where a body's faces are, where they sit relative to its centre, and their pseudo-inertia.
struct BodyFrame {
  View label;    // body id per cell (body_labels.hpp), halo included
  real id;       // this body's
  View mu_max;   // the cells' pseudo-step viscosity: a face's is the larger of its two cells'
  Int3 offset;   // global index of local cell (0, 0, 0)
  Int3 n;        // global cells per axis
  Int3 bounded;  // 1 on axes with walls
  real base[3];  // origin - centre along each axis (0 on inactive axes)
  real dx[3];    // spacing (0 on inactive axes)
  int dims;

  SH_HD Off stride(int axis) const { return axis == 0 ? 1 : (axis == 1 ? label.sy : label.sz); }
  // The low `axis` face of the cell at offset o lies on the body: a body cell beside it, and the
  // other cell in the body or in none (a face between two bodies belongs to neither: the shear
  // layer between them).
  SH_HD bool on_face(int axis, Off o) const {
    const real a = label.p[o], b = label.p[o - stride(axis)];
    return (a == id && (b == id || b == 0)) || (b == id && a == 0);
  }
  // That face lies on the body's rim: one cell beside it in the body, the other not, and it is no
  // wall (a wall face is not an unknown: it resists no rigid motion the walls allow).
  SH_HD bool on_rim(int axis, Off o, const int idx[3]) const {
    const int g = offset[axis] + idx[axis];
    if (bounded[axis] && (g == 0 || g == n[axis])) return false;
    return (label.p[o] == id) != (label.p[o - stride(axis)] == id);
  }
  // The face's pseudo-step viscosity: its velocity moves by dtau/rho~ R = vdt / pseudo R.
  SH_HD real pseudo(int axis, Off o) const { return fmax(mu_max.p[o], mu_max.p[o - stride(axis)]); }
  // Position, relative to the centre, of the low `axis` face of cell (i, j, k), or of its centre
  // along the other axes; from the global index, so every rank computes the same bits.
  SH_HD real coordinate(int a, int face_axis, const int idx[3]) const {
    const real half = a == face_axis ? 0 : real(0.5);
    return base[a] + (offset[a] + idx[a] + half) * dx[a];
  }
};

// Rigid motion: a translation U and an angular velocity w about the centre.
struct RigidMotion {
  real U[3] = {0, 0, 0}, w[3] = {0, 0, 0};
};

class RigidBody {
 public:
  // `body` of the labels in `label`; the correction moves its rigid modes along `modes` (bit k:
  // translation along k < 3, rotation about k - 3; those the walls it touches allow) with
  // `mobility` times the pseudo-step of its rim.
  RigidBody(const Decomposition& dec, Exec ex, const Field& label, const StiffBody& body,
            const Field& mu_max, real mobility, unsigned modes = 63);

  // Adds a rigid motion (the correction) to the body's faces this block owns (the caller exchanges
  // the halos: a face in the outermost halo layer could not tell whether the cell behind it is in
  // the body). Several bodies: every correction from the same change first, then all added.
  void shift(std::array<Field, 3>& V, const RigidMotion& m) const;

  // The least-squares rigid motion of V - V_old on the body's faces (unweighted; for tests), and
  // of the weighted change (the correction).
  RigidMotion rigid_part(const std::array<Field, 3>& V, const std::array<Field, 3>& V_old) const;
  RigidMotion correction(const std::array<Field, 3>& V, const std::array<Field, 3>& V_old) const;

  const StiffBody& body() const { return body_; }
  // The point the rotations turn about (the centre of the body's box).
  std::array<real, 3> centre() const { return centre_; }

 private:
  RigidMotion fit(const std::array<Field, 3>& V, const std::array<Field, 3>& V_old,
                  bool weighted) const;

  const Decomposition& dec_;
  Exec ex_;
  StiffBody body_;
  BodyFrame frame_;
  Region owned_;  // the body's box: the cells this block owns (their low faces)
  std::array<std::array<double, 6>, 6> gram_{};  // sum over body faces of phi_k . phi_l
  // The rigid modes' pseudo-inertia (over vdt): sum over the rim's faces of pseudo phi_k . phi_l
  std::array<std::array<double, 6>, 6> inertia_{};
  std::vector<int> active_;  // modes with faces and a rim, that the walls allow
  real mobility_;
  std::array<real, 3> centre_{};
  double box_cells_ = 0;  // cells of the body's box (global): terms per sum
};

}  // namespace staghorn::stokes
