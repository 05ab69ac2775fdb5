// What speeds the coupled solve beyond its damped iterations (docs/models/hydromech-coupled.md,
// Iterations): a first iterate extrapolated from the last step, and the level correction, a
// one-unknown coarse correction for the mode the local pseudo-steps relax slowest.
#include <cmath>

#include "core/field_ops.hpp"
#include "core/for_each.hpp"
#include "core/decimal.hpp"
#include "models/hydromech/coupled.hpp"

namespace staghorn::hydromech {
namespace {

struct Extrapolate {
  View x, rate;
  real dt;
  SH_HD void operator()(int i, int j, int k) const { x(i, j, k) += dt * rate(i, j, k); }
};

struct RateOver {
  View rate, x, start;
  real dt;
  SH_HD void operator()(int i, int j, int k) const {
    rate(i, j, k) = (x(i, j, k) - start(i, j, k)) / dt;
  }
};

struct ShiftBoth {
  View P, Pf;
  real c;
  SH_HD void operator()(int i, int j, int k) const {
    P(i, j, k) += c;
    Pf(i, j, k) += c;
  }
};

}  // namespace

// From the step's start (save_start kept it: a retry or a stop goes back there, not here).
// Interior only, then the halos and the walls as refresh() sets them, so that a restart (which
// reads no ghost) continues to the bit.
void CoupledHydroMech::predict() {
  if (!rates_) return;
  const Region in = layout_.interior();
  for_each(ex_, in, Extrapolate{P_.view(), rates_->P.view(), dt_});
  for_each(ex_, in, Extrapolate{Pf_.view(), rates_->Pf.view(), dt_});
  std::vector<Field*> moved{&P_, &Pf_};
  for (int a = 0; a < dims(); ++a) {
    for_each(ex_, in, Extrapolate{V_[a].view(), rates_->V[a].view(), dt_});
    moved.push_back(&V_[a]);
  }
  halo_.exchange(moved);
  apply_walls(V_, P_, Pf_);
  derive_from_viscosity(ViscosityMode::keep);  // the porosity follows the new p - pf
}

// A step from the initial condition changes the iterate from a guess to a solution: no rate. The
// next step then starts from the last solution itself.
void CoupledHydroMech::keep_rates() {
  if (!rates_) return;
  if (!converged_start_) {
    for (Field* f : {&rates_->P, &rates_->Pf, &rates_->V[0], &rates_->V[1], &rates_->V[2]})
      fill(ex_, *f, 0);
    return;
  }
  const Region in = layout_.interior();
  for_each(ex_, in, RateOver{rates_->P.view(), P_.view(), P_start_.view(), dt_});
  for_each(ex_, in, RateOver{rates_->Pf.view(), Pf_.view(), Pf_start_.view(), dt_});
  for (int a = 0; a < dims(); ++a)
    for_each(ex_, in, RateOver{rates_->V[a].view(), V_[a].view(), V_start_[a].view(), dt_});
}

void CoupledHydroMech::shift_level(real c) {
  for_each(ex_, layout_.all(), ShiftBoth{P_.view(), Pf_.view(), c});
  apply_walls(V_, P_, Pf_);  // the dirichlet ghosts move the other way
}

// The conductance by a difference: the balance is linear in the shift (pressure differences,
// and so porosities and permeabilities, do not move), whatever the ghost rule of the sides.
// The shift by one pressure scale B delta is then taken back with the first correction.
void CoupledHydroMech::begin_level() {
  level_conductance_ = 0;
  bool open = false;
  for (int s = 0; s < 2 * dims(); ++s)
    open = open || (opt_.fluid_sides[s].kind == PeBcKind::dirichlet && !dec_.grid().periodic[s / 2]);
  if (!opt_.level_correction || !open) return;
  const real probe = opt_.mat.buoyancy * std::sqrt(opt_.mat.k0 * opt_.mat.eta0);
  const real before = volume_balance();
  shift_level(probe);
  const real conductance = (before - volume_balance()) / probe;
  if (!(conductance > 0 && std::isfinite(conductance))) {
    shift_level(-probe);
    return;
  }
  level_conductance_ = conductance;
  shift_level(before / conductance - probe);
}

void CoupledHydroMech::correct_level() {
  if (level_conductance_ > 0) shift_level(volume_balance() / level_conductance_);
}

CarriedState CoupledHydroMech::carried_state() const {
  CarriedState s = PtModel::carried_state();
  s.emplace_back("converged_start", converged_start_ ? 1 : 0);
  return s;
}

bool CoupledHydroMech::take_carried(const std::string& name, double value) {
  if (name != "converged_start") return PtModel::take_carried(name, value);
  if (value != 0 && value != 1)
    throw io::ConfigError("carried converged_start = " + shortest(value) + " is not 0 or 1");
  converged_start_ = value == 1;
  return true;
}

}  // namespace staghorn::hydromech
