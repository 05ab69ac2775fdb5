// The coupled variant's two-phase terms and shear viscosity on the host side: the porosity carried
// by the solid over a step, the viscosity's updates inside the iterations, and the porosity's
// range at a step's end (docs/models/hydromech-coupled.md). A kernel source.
#include <cmath>
#include <sstream>

#include "core/boundary.hpp"
#include "core/dispatch.hpp"
#include "core/error.hpp"
#include "core/field_ops.hpp"
#include "core/for_each.hpp"
#include "core/reduce_each.hpp"
#include "models/hydromech/coupled.hpp"

namespace staghorn::hydromech {
namespace {

// The advective Courant number a sub-step keeps below (A > 0 needs < 2/3: two_phase.hpp).
constexpr real kAdvectiveCourant = 0.5;

// The smallest and largest porosity of the interior, as -min and max.
struct Range {
  View phi;
  SH_HD Terms<2> operator()(int i, int j, int k) const {
    const real p = phi(i, j, k);
    return {{-p, p}};
  }
};

}  // namespace

void CoupledHydroMech::advect_porosity() {
  dispatch<1, 2, 3>("grid dimensions", dims(),
                    [&](auto dim) { advect_porosity_dim<decltype(dim)::value>(); });
  halo_.exchange({&phi_old_});
  fill_ghosts(ex_, dec_, phi_old_, zero_gradient_sides());
}

// phi_old_ = phi_ - dt div(phi v) by upwind fluxes of phi's reconstruction, in sub-steps of dt /
// count; exc_ holds a sub-step's start (the iterate's porosity is recomputed from A afterwards).
template <int Dim>
void CoupledHydroMech::advect_porosity_dim() {
  const Grid& g = dec_.grid();
  two_phase::AdvectiveCourant<Dim> courant{{V_[0].view(), V_[1].view(), V_[2].view()}, {}};
  for (int a = 0; a < Dim; ++a) courant.lambda[a] = dt_ / g.spacing(a);
  const real c = dec_.comm().max(reduce(ex_, layout_.interior(), MaxOp{}, courant));
  if (!std::isfinite(c))
    throw NumericalError("hydromech: the solid velocity that carries the porosity is not finite");
  const int count = std::max(1, static_cast<int>(std::ceil(c / kAdvectiveCourant)));
  copy(ex_, phi_old_, phi_);
  for (int sub = 0; sub < count; ++sub) {
    if (sub > 0) {
      halo_.exchange({&phi_old_});
      fill_ghosts(ex_, dec_, phi_old_, zero_gradient_sides());
    }
    copy(ex_, exc_, phi_old_);
    for (int a = 0; a < Dim; ++a) {
      const int lo = !g.periodic[a] && dec_.at_low(a), hi = !g.periodic[a] && dec_.at_high(a);
      for_each(ex_, layout_.interior(),
               two_phase::PorositySlope{exc_.view(), slope_.view(), a, layout_.n[a], lo, hi});
      halo_.exchange({&slope_});
      fill_ghosts(ex_, dec_, slope_, zero_gradient_sides());
      for_each(ex_, layout_.interior(),
               two_phase::AdvectAlong{exc_.view(), slope_.view(), V_[a].view(), phi_old_.view(),
                                      dt_ / count / g.spacing(a), a});
    }
  }
}

bool CoupledHydroMech::varying_viscosity() const {
  const two_phase::ShearLaw& l = opt_.shear;
  return l.n != 1 || l.alpha != 0 || l.bulk_follows;
}

void CoupledHydroMech::update_viscosity(ViscosityMode mode) {
  update_porosity();  // the law reads the iterate's porosity
  dispatch<1, 2, 3>("grid dimensions", dims(),
                    [&](auto dim) { update_viscosity_dim<decltype(dim)::value>(mode); });
  // One exchange for both (every update: on GPUs these exchanges are not hidden): the scale's
  // halo for the porosity, mu's for mu_max.
  halo_.exchange({&scale_, &mu_});
  for (Field* f : {&scale_, &mu_}) fill_ghosts(ex_, dec_, *f, zero_gradient_sides());
  // A scale that follows the viscosity moves the iterate's porosity.
  if (opt_.shear.bulk_follows) {
    if (fused_porosity())
      porosity_stale_ = true;
    else
      porosity_pass();
  }
  refresh_mu_max();
}

template <int Dim>
void CoupledHydroMech::update_viscosity_dim(ViscosityMode mode) {
  const coupled::Pseudo<Dim> ps = pseudo<Dim>();
  stokes::Kinematics<Dim> k = ps;  // the velocities' physical strain rates
  k.c.deviatoric = 1;
  if (mode == ViscosityMode::keep)
    return for_each(ex_, layout_.interior(),
                    two_phase::ShearViscosityDerived{opt_.shear, exc_.view(), phi_old_.view(),
                                                     mu_s_.view(), mu_.view(), scale_.view(),
                                                     phi_ref_, dt_, opt_.two_phase});
  two_phase::ShearLaw law = opt_.shear;
  law.update.theta = relaxation_;
  for_each(ex_, layout_.interior(),
           two_phase::ShearViscosityUpdate<Dim>{k, law, exc_.view(), phi_old_.view(),
                                                mu_s_.view(), scale_.view(), phi_ref_, dt_,
                                                mode == ViscosityMode::set, opt_.two_phase});
}

void CoupledHydroMech::refresh_mu_max() {
  dispatch<1, 2, 3>("grid dimensions", dims(), [&](auto dim) {
    for_each(ex_, layout_.interior(),
             stokes::LocalMax<decltype(dim)::value>{mu_.view(), mu_max_.view(), 0});
  });
  halo_.exchange({&mu_max_});
  fill_ghosts(ex_, dec_, mu_max_, zero_gradient_sides());
}

pt::Residual CoupledHydroMech::viscosity_residual() {
  update_porosity();
  const real local = dispatch<1, 2, 3>("grid dimensions", dims(), [&](auto dim) {
    constexpr int D = decltype(dim)::value;
    stokes::Kinematics<D> k = pseudo<D>();
    k.c.deviatoric = 1;
    return reduce(ex_, layout_.interior(), MaxOp{},
                  two_phase::ShearViscosityMismatch<D>{k, opt_.shear, exc_.view(), mu_s_.view(),
                                                       phi_ref_});
  });
  return {"viscosity", dec_.comm().max(local), 1};
}

void CoupledHydroMech::check_porosity_range() const {
  const std::array<double, 2> local =
      reduce_each<2>(ex_, layout_.interior(), MaxOp{}, Range{phi_.view()});
  const std::vector<double> m = dec_.comm().max(std::vector<double>(local.begin(), local.end()));
  const double lo = -m[0], hi = m[1];
  if (lo > 0 && hi < (opt_.two_phase ? 1 : INFINITY)) return;
  std::ostringstream msg;
  msg << "hydromech: the porosity left its range over a step of dt = " << dt_ << " (min " << lo
      << ", max " << hi << (opt_.two_phase ? ", must stay within (0, 1)" : ", must stay above 0")
      << "); shorten time.dt";
  throw NumericalError(msg.str());
}

ChimneyStats CoupledHydroMech::chimney() const {
  const real base =
      opt_.chimney.base.value_or(static_cast<real>(dec_.grid().origin[up_]));
  return chimney_stats(ex_, dec_, phi_, opt_.chimney.threshold.value_or(2 * opt_.mat.phi0), base,
                       up_);
}

}  // namespace staghorn::hydromech
