// The Stokes model's stiff bodies (docs/models/stiff-bodies.md): found in the
// viscosity field at every refresh(), each corrected along its rigid modes after every iteration.
#include <cmath>
#include <vector>

#include "core/boundary.hpp"
#include "core/field_ops.hpp"
#include "core/quantile.hpp"
#include "models/staggered_stokes/fields.hpp"
#include "models/stokes/stiff_bodies/stiff_bodies.hpp"
#include "models/stokes/stokes.hpp"

namespace staghorn::stokes {
namespace {
// The rigid modes a body may take beside the walls its box reaches: a free-slip wall forbids the
// translation along its normal and the rotations that move it along that normal (about the other
// two axes); a no-slip or prescribed wall holds the body (no mode).
unsigned wall_modes(unsigned touched, const std::array<Wall, 6>& walls) {
  unsigned modes = 63;
  for (int side = 0; side < 6; ++side) {
    if (!(touched >> side & 1u)) continue;
    if (walls[side] != Wall::free_slip) return 0;
    const int a = side / 2;
    modes &= ~(1u << a);
    for (int b = 0; b < 3; ++b)
      if (b != a) modes &= ~(1u << (3 + b));
  }
  return modes;
}

// The rigid modes of a d-dimensional body: in 2-D the translations along x and y and the rotation
// about z (a mode without faces would leave a body that the walls hold entirely in the passes).
unsigned dimension_modes(int dims) { return dims == 3 ? 63u : (1u | 2u | 32u); }

}  // namespace

const RigidBodies& Stokes::rigid_bodies() const { return bodies_->rigid; }

const Field* Stokes::body_labels() const {
  return bodies_->labels ? &*bodies_->labels : nullptr;
}

void Stokes::set_rigid_bodies(real stiffest) {
  bodies_->rigid = RigidBodies();
  if (!opt_.rigid_bodies.on || rigid_mobility_ <= 0) return;
  // The matrix: the lowest decile of the cell viscosities (the median, where smoothed stiff
  // inclusions cover half the domain, is one of them). Seeds: cells stiffer than the geometric
  // mean of the matrix's and the stiffest cell's viscosity; grown over the cells whose
  // pseudo-steps come from a viscosity above threshold x the matrix's.
  const Region in = layout_.interior();
  const real matrix = quantile(ex_, dec_.comm(), in, mu_, 0.1);
  const real threshold = opt_.rigid_bodies.threshold * matrix;
  if (!(stiffest > threshold)) return;
  const real seed = std::fmax(std::sqrt(matrix * stiffest), threshold);
  // A body's walls are those its solid part reaches: the cells above the geometric mean of the
  // seed threshold and the stiffest cell (a smoothed inclusion's tail above the seed reaches a
  // wall several cells before the inclusion itself does).
  const real solid = std::sqrt(seed * stiffest);
  std::optional<Field>& labels = bodies_->labels;
  if (!labels) labels.emplace("body", Location::cell, layout_, ex_.backend());
  const std::vector<StiffBody> bodies =
      label_stiff_bodies(dec_, ex_, mu_, mu_max_, seed, threshold, solid, *labels,
                         [&](Field& f) { halo_.exchange({&f}); });
  // Each body's rigid modes move with the pseudo-inertia of its rim, along the modes its walls
  // allow.
  std::vector<CorrectedBody> corrected;
  for (const StiffBody& b : bodies) {
    const unsigned modes = wall_modes(b.walls, opt_.walls) & dimension_modes(dims());
    if (modes != 0) corrected.push_back({b, modes});
  }
  if (!corrected.empty())
    bodies_->rigid = RigidBodies(dec_, ex_, *labels, corrected, mu_max_, rigid_mobility_,
                                 Buoyancy{&rho_, {params().g[0], params().g[1], params().g[2]}});
}

void Stokes::accelerate_rigid_bodies(int dims, Lane walls_lane) {
  // Every correction from the net force and torque of this iteration's stresses (those of its
  // change), then all added: a body's correction never sees another's.
  const Params c = params();
  BodyStresses st{P_.view(), {}, c.vdt, {c.rdx, c.rdy, c.rdz}};
  for (int n : stress_components(dims)) st.T[n] = T_[n].view();
  // Faces that moved away from the block's edges leave its halos and walls as they were; on one
  // rank the shift sets the walls' ghosts of the faces it moves itself.
  if (bodies_->rigid.correct(V_, st, bodies_->walls, walls_lane)) return;
  std::vector<Field*> v;
  for (int a = 0; a < dims; ++a) v.push_back(&V_[a]);
  halo_.exchange(v);
  // Side by side (in the order of the fill's axes), each only where its records reach.
  const RigidBodies& rigid = bodies_->rigid;
  for (int side = 0; side < 6; ++side)
    if (rigid.edge_sides() >> side & 1u) apply_velocity_walls(V_, 1u << side, rigid.reach(side));
}

}  // namespace staghorn::stokes
