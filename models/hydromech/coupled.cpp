#include "models/hydromech/coupled.hpp"

#include <cmath>

#include "core/boundary.hpp"
#include "core/error.hpp"
#include "core/exact_sum.hpp"
#include "core/field_ops.hpp"
#include "core/for_each.hpp"
#include "models/hydromech/config.hpp"
#include "models/hydromech/porosity_stats.hpp"
#include "models/stokes/wall_edges.hpp"

namespace staghorn::hydromech {
namespace {

const char* kSides[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};

std::array<Field, 3> faces(const std::string& prefix, const Layout& l, Backend b, bool described) {
  auto field = [&](int a, Location loc) {
    const std::string axis = a == 0 ? "x" : (a == 1 ? "y" : "z");
    return described ? Field(prefix + axis, loc, l, b, "1", "solid velocity along " + axis)
                     : Field(prefix + axis, loc, l, b);
  };
  return {field(0, Location::face_x), field(1, Location::face_y), field(2, Location::face_z)};
}

std::array<Field, 6> stresses(const std::string& prefix, const Layout& l, Backend b,
                              bool described) {
  const char* comp[6] = {"xx", "yy", "zz", "xy", "xz", "yz"};
  const Location loc[6] = {Location::cell,    Location::cell,    Location::cell,
                           Location::edge_xy, Location::edge_xz, Location::edge_yz};
  auto field = [&](int c) {
    const std::string name = prefix + comp[c];
    return described ? Field(name, loc[c], l, b, "1", std::string("deviatoric stress ") + comp[c])
                     : Field(name, loc[c], l, b);
  };
  return {field(0), field(1), field(2), field(3), field(4), field(5)};
}

SideBcs zero_gradient() {
  SideBcs b;
  for (Bc& s : b) s = {BcKind::neumann, 0};
  return b;
}

struct CellValue {
  View f;
  SH_HD real operator()(int i, int j, int k) const { return f(i, j, k); }
};

}  // namespace

CoupledHydroMech::CoupledHydroMech(const ModelContext& ctx)
    : dec_(ctx.dec),
      ex_(ctx.exec),
      layout_(ctx.layout()),
      up_(ctx.dec.grid().dims() - 1),
      V_(faces("V", layout_, ex_.backend(), true)),
      V_new_(faces("V_new_", layout_, ex_.backend(), false)),
      V_start_(faces("V_start_", layout_, ex_.backend(), false)),
      P_("P", Location::cell, layout_, ex_.backend(), "1",
         "total pressure minus the lithostatic pressure of the reference porosity"),
      P_new_("P_new", Location::cell, layout_, ex_.backend()),
      P_start_("P_start", Location::cell, layout_, ex_.backend()),
      Pf_("Pf", Location::cell, layout_, ex_.backend(), "1",
          "fluid pressure minus the lithostatic pressure of the reference porosity"),
      Pf_new_("Pf_new", Location::cell, layout_, ex_.backend()),
      Pf_start_("Pf_start", Location::cell, layout_, ex_.backend()),
      dPfdtau_("dPfdtau", Location::cell, layout_, ex_.backend()),
      T_(stresses("tau_", layout_, ex_.backend(), true)),
      T_new_(stresses("tau_new_", layout_, ex_.backend(), false)),
      T_old_(stresses("tau_old_", layout_, ex_.backend(), false)),
      phi_("phi", Location::cell, layout_, ex_.backend(), "1", "porosity"),
      phi_old_("phi_old", Location::cell, layout_, ex_.backend()),
      exc_("exc", Location::cell, layout_, ex_.backend()),
      mu_("mu", Location::cell, layout_, ex_.backend()),
      mu_max_("mu_max", Location::cell, layout_, ex_.backend()),
      halo_(ctx.dec, layout_, ctx.exec, /*corners=*/true),  // shear stresses: diagonal neighbours
      split_(split_for(halo_, layout_.interior(), ctx.boundary_width())),
      hide_(ctx.hide_communication() && halo_.remote()),
      pf_bcs_(pe_bcs_from(ctx.config)),
      mat_(material_from(ctx.config)),
      eta_s_(io::at_path(ctx.config, "hydromech.coupled.shear_viscosity").get<real>()),
      shear_modulus_(io::at_path(ctx.config, "hydromech.coupled.shear_modulus").get<real>()),
      Re_(io::at_path(ctx.config, "hydromech.coupled.Re").get<real>()),
      r_(io::at_path(ctx.config, "hydromech.coupled.r").get<real>()),
      mean_reference_(ctx.dec.grid().periodic[ctx.dec.grid().dims() - 1]),
      solver_(pt::Options::from(ctx.config)),
      cfl_(solver_.options().cfl) {
  if (solver_.options().relative)
    throw io::ConfigError(
        "solver.tol_mode: the coupled hydromech variant needs \"absolute\" (its residuals are "
        "scaled to be dimensionless, and the solid mass residual starts at zero)");
  const io::json& ref = io::at_path(ctx.config, "hydromech.coupled.reference_porosity");
  if (mean_reference_ && !ref.is_null())
    throw io::ConfigError(
        "hydromech.coupled.reference_porosity: must be null on a periodic up axis (the mean "
        "porosity is the only reference a periodic column can balance)");
  phi_ref_ = ref.is_null() ? mat_.phi0 : ref.get<real>();
  for (int s = 0; s < 6; ++s)
    no_slip_[s] = io::at_path(ctx.config, std::string("hydromech.coupled.boundary.") + kSides[s]) ==
                  "no_slip";
  set_initial(io::at_path(ctx.config, "hydromech.initial"));
}

real CoupledHydroMech::compaction_length() const {
  return std::sqrt(mat_.k0 * (mat_.eta0 + real(4) / 3 * eta_s_));
}

std::vector<int> CoupledHydroMech::stress_components() const {
  switch (dims()) {
    case 1:
      return {0};
    case 2:
      return {0, 1, 3};
    default:
      return {0, 1, 2, 3, 4, 5};
  }
}

std::vector<Field*> CoupledHydroMech::unknowns(std::array<Field, 3>& V, Field& P, Field& Pf,
                                               std::array<Field, 6>& T) {
  std::vector<Field*> out{&P, &Pf};
  for (int a = 0; a < dims(); ++a) out.push_back(&V[a]);
  for (int c : stress_components()) out.push_back(&T[c]);
  return out;
}

std::vector<const Field*> CoupledHydroMech::output_fields() const {
  std::vector<const Field*> out{&phi_, &P_, &Pf_};
  for (int a = 0; a < dims(); ++a) out.push_back(&V_[a]);
  for (int c : stress_components()) out.push_back(&T_[c]);
  return out;
}

std::vector<Field*> CoupledHydroMech::state_fields() {
  std::vector<Field*> out = unknowns(V_, P_, Pf_, T_);
  out.insert(out.begin(), &phi_);
  return out;
}

double CoupledHydroMech::bytes_per_cell_iteration() const {
  const int d = dims(), stress = static_cast<int>(stress_components().size());
  const int updated = d + 3 + stress;                // v, p, pf, dpf/dtau, tau: read and written
  int read = 4 + (shear_modulus_ > 0 ? stress : 0);  // phi_old, exc, mu, mu_max (+ tau_old)
  return (2 * updated + read + 1) * sizeof(real);    // + exc written by the porosity pass
}

coupled::Constants CoupledHydroMech::constants() const {
  const Grid& g = dec_.grid();
  coupled::Constants k{};
  k.mat = mat_;
  k.dt = dt_;
  k.phi_ref = phi_ref_;
  k.cfl = static_cast<float>(cfl_);
  k.elastic = shear_modulus_ > 0 ? 1 / (2 * shear_modulus_ * dt_) : 0;
  stokes::Params& p = k.sp;
  real rdx[3] = {0, 0, 0}, dmin = g.spacing(0), lmax = g.length[0];
  for (int a = 0; a < g.dims(); ++a) {
    rdx[a] = 1 / g.spacing(a);
    k.sum_rdx2 += rdx[a] * rdx[a];
    k.slowest += M_PI * M_PI / (g.length[a] * g.length[a]);
    dmin = std::fmin(dmin, g.spacing(a));
    lmax = std::fmax(lmax, g.length[a]);
  }
  p.rdx = rdx[0], p.rdy = rdx[1], p.rdz = rdx[2];
  // The Stokes model's pseudo-steps (Räss et al. 2022), with the local viscosity eta_ve.
  const real vp_dtau = cfl_ * dmin / std::sqrt(real(g.dims()));
  p.gdt = Re_ * vp_dtau / (lmax * (r_ + 2));
  p.r = r_;
  p.vdt = vp_dtau * lmax / Re_;
  for (int a = 0; a < 3; ++a) {
    p.g[a] = a == up_ ? mat_.buoyancy : 0;
    k.body[a] = p.g[a];
    p.wall_lo[a] = a < g.dims() && !g.periodic[a] && dec_.at_low(a);
  }
  p.harmonic = false;
  return k;
}

stokes::State CoupledHydroMech::state_of(std::array<Field, 3>& V, Field& P,
                                         std::array<Field, 6>& T) {
  return {V[0].view(), V[1].view(), V[2].view(), P.view(),    T[0].view(),
          T[1].view(), T[2].view(), T[3].view(), T[4].view(), T[5].view()};
}

coupled::Extra CoupledHydroMech::extra() {
  coupled::Extra x{Pf_.view(),
                   dPfdtau_.view(),
                   phi_old_.view(),
                   exc_.view(),
                   T_old_[0].view(),
                   T_old_[1].view(),
                   T_old_[2].view(),
                   T_old_[3].view(),
                   T_old_[4].view(),
                   T_old_[5].view(),
                   {}};
  if (sources_) {
    const std::array<Field, 5>& f = *sources_;
    x.src = {f[0].view(), f[1].view(), f[2].view(), f[3].view(), f[4].view()};
  }
  return x;
}

template <int Dim, bool Sourced>
coupled::Pseudo<Dim, Sourced> CoupledHydroMech::pseudo() {
  const coupled::Constants k = constants();
  return {{k.sp, state_of(V_, P_, T_), {mu_.view(), mu_max_.view(), exc_.view()}}, k, extra()};
}

void CoupledHydroMech::apply_velocity_walls(std::array<Field, 3>& V) {
  const Grid& g = dec_.grid();
  for (int c = 0; c < dims(); ++c) {
    const Layout& l = V[c].layout();
    for (int a = 0; a < dims(); ++a) {
      if (g.periodic[a]) continue;
      const bool normal = a == c;  // the wall's normal velocity lives on the wall (face 0 or n)
      const int n = l.n[a], h = l.h[a];
      for (int side = 0; side < 2; ++side) {
        if (side == 0 ? !dec_.at_low(a) : !dec_.at_high(a)) continue;
        Region r = l.all();
        if (side == 0) {
          r.hi[a] = normal ? 1 : 0;
        } else {
          r.lo[a] = n;
          r.hi[a] = n + h;
        }
        const int mirror = side == 0 ? (normal ? 0 : -1) : (normal ? 2 * n : 2 * n - 1);
        for_each(ex_, r,
                 coupled::VelocityWall{V[c].view(), a, mirror, normal, no_slip_[2 * a + side]});
      }
    }
  }
}

// p and the normal stresses: zero gradient; pf: the fluid conditions (closed: the gradient B that
// stops the Darcy flux; dirichlet: pf = value on the side).
void CoupledHydroMech::apply_pressure_ghosts(Field& P, Field& Pf) {
  apply_boundaries(ex_, dec_, P, zero_gradient());
  real minus_body[3];
  for (int a = 0; a < 3; ++a) minus_body[a] = a == up_ ? -mat_.buoyancy : 0;
  apply_pe_boundaries(ex_, dec_, Pf, pf_bcs_, minus_body);
}

void CoupledHydroMech::refresh() {
  std::vector<Field*> all = unknowns(V_, P_, Pf_, T_);
  all.push_back(&phi_);
  halo_.exchange(all);
  apply_velocity_walls(V_);
  apply_pressure_ghosts(P_, Pf_);
  for (Field* f : {&phi_, &T_[0], &T_[1], &T_[2]}) apply_boundaries(ex_, dec_, *f, zero_gradient());
  // The new-value buffers start equal to the state (walls and ghosts stay put in both).
  for (int a = 0; a < 3; ++a) copy(ex_, V_new_[a], V_[a]);
  for (int c = 0; c < 6; ++c) copy(ex_, T_new_[c], T_[c]);
  copy(ex_, P_new_, P_);
  copy(ex_, Pf_new_, Pf_);
}

StepReport CoupledHydroMech::advance(real dt) {
  const pt::SolveReport r = solver_.solve(*this, dt);
  real dV = 1;
  for (int a = 0; a < dims(); ++a) dV *= dec_.grid().spacing(a);
  balance_ = dims() == 1   ? reduce_residual<1>(4, false) * dV
             : dims() == 2 ? reduce_residual<2>(4, false) * dV
                           : reduce_residual<3>(4, false) * dV;
  finish_step();
  last_ = {r.iterations, r.residuals};
  return last_;
}

void CoupledHydroMech::begin_solve(real dt) {
  dt_ = dt;
  copy(ex_, phi_old_, phi_);  // halos and ghosts included
  if (mean_reference_) {
    const real sum = exact_sum(ex_, dec_.comm(), layout_.interior(), CellValue{phi_.view()});
    phi_ref_ = sum / static_cast<real>(dec_.grid().cells());
  }
  // eta_ve = 1 / (1/eta_s + 1/(G dt)): the viscosity of a Maxwell solid over one step.
  const real eta_ve = shear_modulus_ > 0 ? 1 / (1 / eta_s_ + 1 / (shear_modulus_ * dt)) : eta_s_;
  fill(ex_, mu_, eta_ve);
  fill(ex_, mu_max_, eta_ve);
  for (int c = 0; c < 6; ++c) copy(ex_, T_old_[c], T_[c]);
  for (int a = 0; a < 3; ++a) copy(ex_, V_start_[a], V_[a]);
  copy(ex_, P_start_, P_);
  copy(ex_, Pf_start_, Pf_);
  fill(ex_, dPfdtau_, 0);
  porosity_pass();
}

void CoupledHydroMech::retry(real factor) {
  for (int a = 0; a < 3; ++a) copy(ex_, V_[a], V_start_[a]);
  for (int c = 0; c < 6; ++c) copy(ex_, T_[c], T_old_[c]);
  copy(ex_, P_, P_start_);
  copy(ex_, Pf_, Pf_start_);
  fill(ex_, dPfdtau_, 0);
  refresh();
  cfl_ *= factor;
  porosity_pass();
}

// The iterate's porosity (as its excess over phi_ref) everywhere, halos and ghosts included: the
// halo's p and pf are the owners' values, so the halo's porosity is the owners' to the bit. At an
// open fluid side the ghost porosity is then extrapolated from the inside (the ghosts of p and
// phi_old are zero-gradient: the porosity from them would make the face permeability first order).
void CoupledHydroMech::porosity_pass() {
  for_each(ex_, layout_.all(),
           coupled::Porosity{mat_, dt_, phi_ref_, exc_.view(), phi_old_.view(), P_.view(),
                             Pf_.view(), false});
  extrapolate_porosity_at_open_sides(ex_, dec_, exc_, pf_bcs_, phi_ref_);
}

void CoupledHydroMech::finish_step() {
  for_each(ex_, layout_.interior(),
           coupled::Porosity{mat_, dt_, phi_ref_, phi_.view(), phi_old_.view(), P_.view(),
                             Pf_.view(), true});
  halo_.exchange({&phi_});
  apply_boundaries(ex_, dec_, phi_, zero_gradient());
}

template <int Dim, bool Sourced>
void CoupledHydroMech::iterate_dim(int count) {
  const std::vector<Field*> out = unknowns(V_new_, P_new_, Pf_new_, T_new_);
  for (int it = 0; it < count; ++it) {
    const stokes::State next = state_of(V_new_, P_new_, T_new_);
    // The wall edges hold shear stresses only: no source enters them.
    if constexpr (Dim >= 2) stokes::update_wall_edges<Dim>(ex_, dec_, layout_, pseudo<Dim>(), next);
    const coupled::Pseudo<Dim, Sourced> ps = pseudo<Dim, Sourced>();
    update_and_exchange(ex_, halo_, split_, out, hide_, [&](const Region& r, Lane lane) {
      for_each(ex_, r, lane, coupled::Iteration<Dim, Sourced>{ps, next, Pf_new_.view()});
    });
    apply_velocity_walls(V_new_);
    apply_pressure_ghosts(P_new_, Pf_new_);
    for (int a = 0; a < Dim; ++a) V_[a].swap_data(V_new_[a]);
    for (int s : stress_components()) T_[s].swap_data(T_new_[s]);
    P_.swap_data(P_new_);
    Pf_.swap_data(Pf_new_);
    porosity_pass();
  }
}

// The kernels with sources are chosen here, once per call: a run without them never reads one.
void CoupledHydroMech::iterate(int count) {
  const bool s = sources_ != nullptr;
  switch (dims()) {
    case 1:
      return s ? iterate_dim<1, true>(count) : iterate_dim<1, false>(count);
    case 2:
      return s ? iterate_dim<2, true>(count) : iterate_dim<2, false>(count);
    default:
      return s ? iterate_dim<3, true>(count) : iterate_dim<3, false>(count);
  }
}

template <int Dim>
real CoupledHydroMech::reduce_residual(int equation, bool absolute) {
  return sources_ ? reduce_residual_of<Dim, true>(equation, absolute)
                  : reduce_residual_of<Dim, false>(equation, absolute);
}

template <int Dim, bool Sourced>
real CoupledHydroMech::reduce_residual_of(int equation, bool absolute) {
  const coupled::Residual<Dim, Sourced> f{pseudo<Dim, Sourced>(), equation, 1, absolute};
  const Region in = layout_.interior();
  return absolute ? dec_.comm().max(reduce(ex_, in, MaxOp{}, f))
                  : exact_sum(ex_, dec_.comm(), in, f);
}

// Max-norms, dimensionless: momentum over B, the mass balances over B delta / eta0 (the
// compaction rate of an effective pressure B delta).
std::vector<pt::Residual> CoupledHydroMech::residuals() {
  const real delta = std::sqrt(mat_.k0 * mat_.eta0);
  const real momentum = 1 / mat_.buoyancy, mass = mat_.eta0 / (mat_.buoyancy * delta);
  const char* names[5] = {"momentum_x", "momentum_y", "momentum_z", "solid_mass", "fluid_mass"};
  std::vector<pt::Residual> out;
  for (int e = 0; e < 5; ++e) {
    if (e < 3 && e >= dims()) continue;
    const real r = dims() == 1   ? reduce_residual<1>(e, true)
                   : dims() == 2 ? reduce_residual<2>(e, true)
                                 : reduce_residual<3>(e, true);
    const real scale = e < 3 ? momentum : mass;
    out.push_back({names[e], r * scale, scale});
  }
  return out;
}

std::vector<Diagnostic> CoupledHydroMech::diagnostics() {
  const PorosityStats s = porosity_stats(ex_, dec_, phi_, mat_.phi0, up_);
  const real v_max = max_magnitude(ex_, dec_, V_[up_]);
  std::vector<Diagnostic> d{{"pt_iterations", static_cast<real>(last_.iterations)}};
  const char* names[5] = {"momentum_x", "momentum_y", "momentum_z", "solid_mass", "fluid_mass"};
  std::size_t r = 0;  // the same columns before the first step (zeros) as after it
  for (int e = 0; e < 5; ++e) {
    if (e < 3 && e >= dims()) continue;
    d.push_back({std::string("residual_") + names[e],
                 r < last_.residuals.size() ? last_.residuals[r].norm : 0});
    ++r;
  }
  d.insert(d.end(), {{"fluid_volume", s.fluid},
                     {"balance_error", s.fluid > 0 ? std::fabs(balance_) * dt_ / s.fluid : 0},
                     {"phi_max", s.phi_max},
                     {"peak_height", s.peak_height},
                     {"excess_centroid", s.excess_centroid},
                     {"solid_velocity_max", v_max}});
  return d;
}

std::vector<io::SeriesColumn> CoupledHydroMech::diagnostic_columns() const {
  return {{"pt_iterations", "1", "PT iterations of the step"},
          {"residual_momentum_x", "1", "momentum x residual (max-norm, over B)"},
          {"residual_momentum_y", "1", "momentum y residual (max-norm, over B)"},
          {"residual_momentum_z", "1", "momentum z residual (max-norm, over B)"},
          {"residual_solid_mass", "1", "solid mass residual (max-norm, over B delta / eta0)"},
          {"residual_fluid_mass", "1", "fluid mass residual (max-norm, over B delta / eta0)"},
          {"fluid_volume", "1", "fluid volume: integral of the porosity"},
          {"balance_error", "1", "fluid volume balance error of the step, relative"},
          {"phi_max", "1", "largest porosity"},
          {"peak_height", "1", "height of the porosity maximum (wave position)"},
          {"excess_centroid", "1", "height of the centroid of the porosity excess over phi0"},
          {"solid_velocity_max", "1", "largest solid speed along the up axis"}};
}

}  // namespace staghorn::hydromech
