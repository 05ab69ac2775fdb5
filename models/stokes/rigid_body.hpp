#pragma once
// Rigid-body acceleration of a stiff inclusion (docs/models/stokes.md, "Stiff inclusions").
//
// The pseudo-steps of the PT iterations come from the largest viscosity around each point, so a
// body mu_i / mu_m times stiffer than its matrix has a pseudo-inertia mu_i / mu_m times the
// matrix's. Its rigid motion (translation, rotation) is resisted only by the matrix: it relaxes
// that many times slower than anything else, and the iterations grow ~6x per doubling of n. After
// each iteration this class measures the rigid part of the velocity change on the body's faces (a
// least-squares projection on translations and rotations) and adds `gain` times it: the body's
// rigid modes then move with a pseudo-inertia 1 + gain times smaller, while its deformation keeps
// the stable local pseudo-steps. The fixed point is unchanged (the correction vanishes with the
// change). The sums are exact (every term rounded to a power-of-two quantum that no partial sum
// can outgrow), so any rank count and reduction order gives the same bits.

#include <array>
#include <vector>

#include "core/backend.hpp"
#include "core/decomposition.hpp"
#include "core/field.hpp"
#include "core/stencil.hpp"

namespace staghorn::stokes {

using stencil::Off;

// Where a stiff body's faces are, and where they sit relative to its centre.
struct BodyFrame {
  View mu;         // cell viscosity (halo included)
  real threshold;  // a face belongs to the body if a cell beside it is stiffer than this
  Int3 offset;     // global index of local cell (0, 0, 0)
  real base[3];    // origin - centre along each axis (0 on inactive axes)
  real dx[3];      // spacing (0 on inactive axes)
  int dims;

  Int3 lo, hi;  // the body's box, global cells: stiff cells outside do not count

  SH_HD Off stride(int axis) const { return axis == 0 ? 1 : (axis == 1 ? mu.sy : mu.sz); }
  SH_HD bool stiff(Off o, const int idx[3], int back_axis) const {
    for (int a = 0; a < 3; ++a) {
      const int g = offset[a] + idx[a] - (a == back_axis ? 1 : 0);
      if (g < lo[a] || g >= hi[a]) return false;
    }
    return mu.p[o] > threshold;
  }
  // The low `axis` face of local cell idx (offset o) lies on the body: a stiff cell beside it.
  SH_HD bool on_face(int axis, Off o, const int idx[3]) const {
    return stiff(o, idx, -1) || stiff(o - stride(axis), idx, axis);
  }
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
  // The body: cells stiffer than `threshold` within `radius` (plus `margin` cells) of `centre`.
  RigidBody(const Decomposition& dec, const Layout& layout, Exec ex, const Field& mu,
            real threshold, const std::array<real, 3>& centre, real radius, int margin, real gain);

  // After an iteration took V from V_old: adds gain times the rigid part of the change to the
  // body's faces this block owns (the caller exchanges the halos: a face in the outermost halo
  // layer could not tell whether the cell behind it is stiff).
  void accelerate(std::array<Field, 3>& V, const std::array<Field, 3>& V_old) const;

  // The rigid part of V - V_old on the body (for tests).
  RigidMotion rigid_part(const std::array<Field, 3>& V, const std::array<Field, 3>& V_old) const;

 private:
  const Decomposition& dec_;
  Exec ex_;
  BodyFrame frame_;
  Region owned_;  // the body's box: the cells this block owns (their low faces)
  std::array<std::array<double, 6>, 6> gram_{};  // sum over body faces of phi_k . phi_l
  std::vector<int> active_;                      // modes with faces (gram_[k][k] > 0)
  double box_cells_ = 0;                         // cells of the body's box (global): terms per sum
  real gain_;
};

}  // namespace staghorn::stokes
