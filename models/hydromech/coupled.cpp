#include "models/hydromech/coupled.hpp"

#include <algorithm>
#include <cmath>

#include "core/boundary.hpp"
#include "core/dispatch.hpp"
#include "core/error.hpp"
#include "core/exact_sum.hpp"
#include "core/field_ops.hpp"
#include "core/for_each.hpp"
#include "models/hydromech/config.hpp"
#include "models/hydromech/porosity_stats.hpp"
#include "models/staggered_stokes/fields.hpp"
#include "models/staggered_stokes/params.hpp"
#include "models/staggered_stokes/wall_edges.hpp"

#if defined(__CUDACC__)
#include "models/hydromech/coupled_tiled.hpp"
constexpr bool kTiledCompiled = true;
#else
constexpr bool kTiledCompiled = false;
#endif

namespace staghorn::hydromech {
namespace {

const stokes::FieldText kText{"1", "1", "solid velocity"};

// |R| of every equation at a cell: momentum along each axis, solid mass, fluid mass
// (coupled::Residual's), for the maxima of all of them in one pass.
template <int Dim, bool Sourced>
struct AbsResiduals {
  coupled::Pseudo<Dim, Sourced> ps;
  SH_HD Terms<Dim + 2> operator()(int i, int j, int k) const {
    Terms<Dim + 2> t;
    for (int e = 0; e < Dim; ++e) t.v[e] = coupled::Residual<Dim, Sourced>{ps, e, 1, true}(i, j, k);
    for (int m = 0; m < 2; ++m)
      t.v[Dim + m] = coupled::Residual<Dim, Sourced>{ps, 3 + m, 1, true}(i, j, k);
    return t;
  }
};

// The solid plus the fluid mass residual at a cell: the volume the iterate loses there per unit
// time. Its sum over the domain is the net outflow of solid and fluid, whatever the compaction.
template <int Dim, bool Sourced>
struct VolumeResidual {
  coupled::Pseudo<Dim, Sourced> ps;
  SH_HD real operator()(int i, int j, int k) const {
    return coupled::Residual<Dim, Sourced>{ps, 3, 1, false}(i, j, k) +
           coupled::Residual<Dim, Sourced>{ps, 4, 1, false}(i, j, k);
  }
};

}  // namespace

CoupledHydroMech::CoupledHydroMech(const ModelContext& ctx)
    : CoupledHydroMech(ctx, Options::from(ctx.config)) {}

CoupledHydroMech::CoupledHydroMech(const ModelContext& ctx, const Options& opt)
    : PtModel(ctx, opt.solver, /*corners=*/true),  // shear stresses: diagonal neighbours
      up_(ctx.dec.grid().dims() - 1),
      V_(stokes::velocity_fields("V", layout_, ex_.backend(), &kText)),
      V_new_(stokes::velocity_fields("V_new_", layout_, ex_.backend())),
      V_start_(stokes::velocity_fields("V_start_", layout_, ex_.backend())),
      P_("P", Location::cell, layout_, ex_.backend(), "1",
         "total pressure minus the lithostatic pressure of the reference porosity"),
      P_new_("P_new", Location::cell, layout_, ex_.backend()),
      P_start_("P_start", Location::cell, layout_, ex_.backend()),
      Pf_("Pf", Location::cell, layout_, ex_.backend(), "1",
          "fluid pressure minus the lithostatic pressure of the reference porosity"),
      Pf_new_("Pf_new", Location::cell, layout_, ex_.backend()),
      Pf_start_("Pf_start", Location::cell, layout_, ex_.backend()),
      dPfdtau_("dPfdtau", Location::cell, layout_, ex_.backend()),
      T_(stokes::stress_fields("tau_", layout_, ex_.backend(), &kText)),
      T_new_(stokes::stress_fields("tau_new_", layout_, ex_.backend())),
      T_old_(stokes::stress_fields("tau_old_", layout_, ex_.backend())),
      phi_("phi", Location::cell, layout_, ex_.backend(), "1", "porosity"),
      phi_old_("phi_old", Location::cell, layout_, ex_.backend()),
      exc_("exc", Location::cell, layout_, ex_.backend()),
      mu_("mu", Location::cell, layout_, ex_.backend()),
      mu_max_("mu_max", Location::cell, layout_, ex_.backend()),
      mu_s_("mu_s", Location::cell, layout_, ex_.backend(), "1",
            "shear viscosity of the solid matrix"),
      mu_s_start_("mu_s_start", Location::cell, layout_, ex_.backend()),
      scale_("compaction_scale", Location::cell, layout_, ex_.backend()),
      slope_("slope", Location::cell, layout_, ex_.backend()),
      opt_(opt),
      tiled_(opt_.tiled && layout_.count() < (std::size_t(1) << 31)),
      mean_reference_(ctx.dec.grid().periodic[ctx.dec.grid().dims() - 1]) {
  // The unknowns with their next iterates and start-of-step copies (tau_old is also the Maxwell
  // solid's old stress); phi is written and restarted, but follows from p and pf.
  const unsigned all = FieldTable::output | FieldTable::state | FieldTable::unknown;
  fields_.add(phi_, FieldTable::output | FieldTable::state)
      .add(P_, all, &P_new_, &P_start_)
      .add(Pf_, all, &Pf_new_, &Pf_start_);
  for (int a = 0; a < dims(); ++a) fields_.add(V_[a], all, &V_new_[a], &V_start_[a]);
  for (int c : stress_components()) fields_.add(T_[c], all, &T_new_[c], &T_old_[c]);
  // The creep viscosity: where it varies the iterations relax it, and the next step starts there.
  fields_.add(mu_s_, FieldTable::output | FieldTable::state, nullptr, &mu_s_start_);
  fields_.add(dPfdtau_, FieldTable::pseudo_rate);
  if (opt_.predictor) {
    const stokes::FieldText rate{"1", "1", "rate over the last step of the solid velocity"};
    rates_ = std::make_unique<Rates>(
        Rates{stokes::velocity_fields("dVdt_", layout_, ex_.backend(), &rate),
              Field("dPdt", Location::cell, layout_, ex_.backend(), "1",
                    "rate over the last step of the total over-pressure"),
              Field("dPfdt", Location::cell, layout_, ex_.backend(), "1",
                    "rate over the last step of the fluid over-pressure")});
    const unsigned kept = FieldTable::output | FieldTable::state;
    fields_.add(rates_->P, kept).add(rates_->Pf, kept);
    for (int a = 0; a < dims(); ++a) fields_.add(rates_->V[a], kept);
  }
  if (solver_.options().relative)
    throw io::ConfigError(
        "solver.tol_mode: the coupled hydromech variant needs \"absolute\" (its residuals are "
        "scaled to be dimensionless, and the solid mass residual starts at zero)");
  if (mean_reference_ && opt_.reference_porosity)
    throw io::ConfigError(
        "hydromech.coupled.reference_porosity: must be null on a periodic up axis (the mean "
        "porosity is the only reference a periodic column can balance)");
  phi_ref_ = opt_.reference_porosity.value_or(opt_.mat.phi0);
  walls_.kind = opt_.walls;
  align_shell_with_chunks(ctx.boundary_width());
  set_initial(opt_.initial);
}

// The tiled kernel marches each region along z in chunks counted from the region's first plane,
// and a chunk's prologue (the plane below it) gives other last bits than a march through that
// plane (measured on GPUs split along z). A z shell one chunk thick puts every chunk start where
// one GPU's march has one when the blocks start at multiples of the chunk: such a split then
// equals one GPU's run to the bit. Blocks no thicker than two chunks become all shell (no hiding
// along z).
void CoupledHydroMech::align_shell_with_chunks(Int3 width) {
  if (!tiled_here()) return;
  width.z = std::max(width.z, coupled::kTiledShapes[tiled_shape_].chunk);
  split_ = split_for(halo_, layout_.interior(), width);
}

real CoupledHydroMech::compaction_length() const {
  return std::sqrt(opt_.mat.k0 * (opt_.mat.eta0 + real(4) / 3 * opt_.shear.mu0));
}

std::vector<int> CoupledHydroMech::stress_components() const {
  return stokes::stress_components(dims());
}

double CoupledHydroMech::bytes_per_cell_iteration() const {
  const int d = dims(), stress = static_cast<int>(stress_components().size());
  const int updated = d + 3 + stress;  // v, p, pf, dpf/dtau, tau: read and written
  // phi_old, exc, mu, mu_max, the compaction scale (+ tau_old)
  int read = 5 + (opt_.shear.G > 0 ? stress : 0);
  // + exc written by the porosity pass; none of it where the kernel computes exc itself.
  double fields = fused_porosity() ? 2 * updated + read - 1 : 2 * updated + read + 1;
  // A varying viscosity's update every interval: v, exc, A and mu_s read, mu_s, mu and the scale
  // written, mu_max from mu (read, written), and the porosity pass it needs where the kernel
  // computes the porosity itself (phi_old, p, pf, the scale read, exc written).
  if (varying_viscosity())
    fields += (d + 3 + 3 + 2 + (fused_porosity() ? 5 : 0)) / double(opt_.shear_interval);
  return fields * sizeof(real);
}

// The fluid's drive relative to the lithostat of phi_ref: (rho_ref - rho_f) g = (1 - phi_ref) B
// (B in the small-porosity limit).
real CoupledHydroMech::fluid_drive() const {
  return opt_.two_phase ? (1 - phi_ref_) * opt_.mat.buoyancy : opt_.mat.buoyancy;
}

namespace {
// The solid's PT parameters the tuning starts from (Re) and keeps (r): the best of a sweep over Re
// 8..64 and r 0.5..16 on a rising blob and a reservoir's first step
// (docs/models/hydromech-coupled.md).
constexpr real kStartRe = 24, kR = 4;
}  // namespace

real CoupledHydroMech::Re() const { return damping_ ? damping_->Re() : opt_.Re.value_or(kStartRe); }
real CoupledHydroMech::r() const { return opt_.r.value_or(kR); }

coupled::Constants CoupledHydroMech::constants() const {
  const Grid& g = dec_.grid();
  coupled::Constants k{};
  k.mat = opt_.mat;
  k.dt = dt_;
  k.phi_ref = phi_ref_;
  k.cfl = static_cast<float>(cfl_);
  k.elastic = opt_.shear.G > 0 ? 1 / (2 * opt_.shear.G * dt_) : 0;
  // The Stokes model's pseudo-steps, with the local viscosity eta_ve and the buoyancy B up.
  std::array<real, 3> up{0, 0, 0};
  up[up_] = opt_.mat.buoyancy;
  k.sp = stokes::pt_params(dec_, {Re(), r(), cfl_, up, false});
  const real rdx[3] = {k.sp.rdx, k.sp.rdy, k.sp.rdz};
  for (int a = 0; a < 3; ++a) k.body[a] = a == up_ ? fluid_drive() : 0;
  for (int a = 0; a < g.dims(); ++a) k.sum_rdx2 += rdx[a] * rdx[a];
  k.slowest = g.slowest_mode();
  return k;
}

stokes::State CoupledHydroMech::state_of(std::array<Field, 3>& V, Field& P,
                                         std::array<Field, 6>& T) {
  return {V[0].view(), V[1].view(), V[2].view(), P.view(),    T[0].view(),
          T[1].view(), T[2].view(), T[3].view(), T[4].view(), T[5].view()};
}

coupled::Extra CoupledHydroMech::extra() {
  coupled::Extra x{Pf_.view(), dPfdtau_.view(), phi_old_.view(), exc_.view(), scale_.view(), {}};
  if (sources_) {
    const std::array<Field, 5>& f = *sources_;
    x.src = {f[0].view(), f[1].view(), f[2].view(), f[3].view(), f[4].view()};
  }
  return x;
}

template <int Dim, bool Sourced>
coupled::Pseudo<Dim, Sourced> CoupledHydroMech::pseudo() {
  const coupled::Constants k = constants();
  stokes::OldStress old{};
  for (int c = 0; c < 6; ++c) old.tau[c] = T_old_[c].view();
  old.elastic = k.elastic;
  return {
      {{k.sp, state_of(V_, P_, T_), {mu_.view(), mu_max_.view(), exc_.view()}}, old}, k, extra()};
}

// pf's: closed, the gradient B that stops the Darcy flux; dirichlet, pf = value on the side.
std::array<SideRules, 2> CoupledHydroMech::pressure_rules() const {
  real minus_body[3];
  for (int a = 0; a < 3; ++a) minus_body[a] = a == up_ ? -fluid_drive() : 0;
  return {zero_gradient_sides(), pe_rules(dec_.grid(), opt_.fluid_sides, minus_body)};
}

// The solid walls, and the ghosts of p and pf (pressure_rules), in one fill.
void CoupledHydroMech::apply_walls(std::array<Field, 3>& V, Field& P, Field& Pf) {
  GhostFill fill;
  walls_.add_velocities(fill, V, dims());
  const std::array<SideRules, 2> r = pressure_rules();
  fill.add(P, r[0]).add(Pf, r[1]);
  fill.apply(ex_, dec_);
}

void CoupledHydroMech::refresh() {
  halo_.exchange(fields_.with(FieldTable::state));
  apply_walls(V_, P_, Pf_);
  for (Field* f : {&phi_, &T_[0], &T_[1], &T_[2]})
    fill_ghosts(ex_, dec_, *f, zero_gradient_sides());
  copy_unknowns_to_next();  // walls and ghosts stay put in both
}

// A step: the porosity carried by the solid (A), the reference porosity, the chimney's front,
// then the viscosity and the compaction scale from the iterate (the start of the step), kept as
// the step's start.
void CoupledHydroMech::begin_solve(real dt) {
  dt_ = dt;
  cfl_ = opt_.solver.cfl;  // a retry's smaller pseudo-step and relaxation hold for its step only
  relaxation_ = opt_.shear.update.theta;
  solve_iterations_ = 0;
  if (!opt_.Re) {
    const Int3& n = dec_.grid().n;
    damping_.emplace(kStartRe, std::max({n.x, n.y, n.z}));
  }
  if (opt_.two_phase)
    advect_porosity();
  else
    copy(ex_, phi_old_, phi_);  // halos and ghosts included
  if (mean_reference_) {
    const real sum = exact_sum(ex_, dec_.comm(), layout_.interior(), ValueAt{phi_.view()});
    phi_ref_ = sum / static_cast<real>(dec_.grid().cells());
  }
  front_start_ = chimney().front;
  derive_from_viscosity(ViscosityMode::set);
  save_start();  // no pseudo-rate either; the viscosity as set here
  predict();
  begin_level();
}

// Back to the step's start: the start copies (the viscosity too) and no pseudo-rate (PtModel),
// and what follows from them (a stop or a retry would otherwise keep the abandoned iterate's).
void CoupledHydroMech::to_step_start() {
  restore_start();
  solve_iterations_ = 0;
  derive_from_viscosity(ViscosityMode::keep);
}

// The compaction scale without the viscosity's factor, the iterate's porosity from it, then the
// viscosity (by `mode`), its scale and the porosity again where the bulk viscosity follows it.
void CoupledHydroMech::derive_from_viscosity(ViscosityMode mode) {
  for_each(ex_, layout_.all(),
           two_phase::CompactionScale{phi_old_.view(), scale_.view(), opt_.two_phase});
  porosity_pass();
  update_viscosity(mode);
}

// A retry takes smaller pseudo-steps and relaxes the viscosity by as much more slowly: a stall in
// the nonlinear iterations is the viscosity and the pressures chasing each other.
void CoupledHydroMech::retry(real factor) {
  abandon_step();
  cfl_ *= factor;
  relaxation_ *= factor;
  if (damping_) damping_->restart();
}

// The iterate's porosity (as its excess over phi_ref) everywhere, halos and ghosts included: the
// halo's p and pf are the owners' values, so the halo's porosity is the owners' to the bit. At an
// open fluid side the ghost porosity is then extrapolated from the inside (the ghosts of p and
// phi_old are zero-gradient: the porosity from them would make the face permeability first order).
void CoupledHydroMech::porosity_pass() {
  porosity_stale_ = false;
  for_each(ex_, layout_.all(),
           coupled::Porosity{opt_.mat, dt_, phi_ref_, exc_.view(), phi_old_.view(), P_.view(),
                             Pf_.view(), scale_.view(), false});
  extrapolate_porosity_at_open_sides(ex_, dec_, exc_, opt_.fluid_sides, phi_ref_);
}

void CoupledHydroMech::end_step() {
  real dV = 1;
  for (int a = 0; a < dims(); ++a) dV *= dec_.grid().spacing(a);
  keep_rates();  // reads converged_start_ as the step began
  converged_start_ = true;
  balance_ = residual_sum(4) * dV;
  solid_balance_ = residual_sum(3) * dV;
  outflow_ = fluid_crossing(1);
  inflow_ = fluid_crossing(-1);
  for_each(ex_, layout_.interior(),
           coupled::Porosity{opt_.mat, dt_, phi_ref_, phi_.view(), phi_old_.view(), P_.view(),
                             Pf_.view(), scale_.view(), true});
  halo_.exchange({&phi_});
  fill_ghosts(ex_, dec_, phi_, zero_gradient_sides());
  check_porosity_range();
}

bool CoupledHydroMech::tiled_here() const {
  return kTiledCompiled && tiled_ && ex_.on_device() && dims() == 3 && !sources_;
}

template <int Dim, bool Sourced>
void CoupledHydroMech::run_iteration(const coupled::Pseudo<Dim, Sourced>& ps,
                                     const stokes::State& next, const Region& r, Lane lane) {
#if defined(__CUDACC__)
  if constexpr (Dim == 3 && !Sourced)
    if (tiled_here()) {
      const Grid& g = dec_.grid();
      bool wall_hi[3];  // as update_wall_edges: the tiled kernel stores those edges itself
      for (int a = 0; a < 3; ++a) wall_hi[a] = !g.periodic[a] && dec_.at_high(a);
      coupled::tiled::Args args =
          coupled::tiled::args_of(ps, next, Pf_new_.view(), layout_.n, wall_hi);
      args.open_z[0] = dec_.at_low(2) && opt_.fluid_sides[4].kind == PeBcKind::dirichlet;
      args.open_z[1] = dec_.at_high(2) && opt_.fluid_sides[5].kind == PeBcKind::dirichlet;
      constexpr int kShapes = coupled::kTiledShapeCount;
      return dispatch_index<kShapes>("tiled shape", tiled_shape_, [&](auto shape) {
        constexpr coupled::TiledShape s = coupled::kTiledShapes[decltype(shape)::value];
        coupled::launch_tiled<s.tx, s.ty, s.blocks>(ex_.stream(lane), r, args, fused_porosity(),
                                                    s.chunk);
      });
    }
#endif
  for_each(ex_, r, lane, coupled::Iteration<Dim, Sourced>{ps, next, Pf_new_.view()});
}

template <int Dim, bool Sourced>
void CoupledHydroMech::iterate_dim(int count) {
  const std::vector<Field*> out = fields_.next_unknowns();
  for (int it = 0; it < count; ++it) {
    if (solve_iterations_ > 0 && solve_iterations_ % kLevelInterval == 0) correct_level();
    const stokes::State next = state_of(V_new_, P_new_, T_new_);
    // The wall edges hold shear stresses only: no source enters them.
    if constexpr (Dim >= 2)
      if (!(Dim == 3 && tiled_here()))
        stokes::update_wall_edges<Dim>(ex_, dec_, layout_, pseudo<Dim>(), next);
    const coupled::Pseudo<Dim, Sourced> ps = pseudo<Dim, Sourced>();
    update_and_exchange(ex_, halo_, split_, out, hide_, [&](const Region& r, Lane lane) {
      run_iteration<Dim, Sourced>(ps, next, r, lane);
    });
    // Every side, after the tiled kernel too: storing the x sides' ghosts in the kernel saved the
    // fill what it cost the kernel (docs/journal/performance.md).
    apply_walls(V_new_, P_new_, Pf_new_);
    fields_.swap_next();
    if (fused_porosity())
      porosity_stale_ = true;  // the next kernel computes it; residuals ask for it
    else
      porosity_pass();
    // A varying viscosity follows the iterate inside the iterations.
    if (++solve_iterations_ % opt_.shear_interval == 0 && varying_viscosity())
      update_viscosity(ViscosityMode::relax);
  }
}

bool CoupledHydroMech::fused_porosity() const {
  if (!tiled_here()) return false;
  for (int s = 0; s < 4; ++s)  // open x and y sides: the kernel cannot extrapolate across them
    if (opt_.fluid_sides[s].kind == PeBcKind::dirichlet && !dec_.grid().periodic[s / 2])
      return false;
  return true;
}

void CoupledHydroMech::update_porosity() {
  if (porosity_stale_) porosity_pass();
}

// The kernels with sources are chosen here, once per call: a run without them never reads one.
void CoupledHydroMech::iterate(int count) {
  dispatch<1, 2, 3>("grid dimensions", dims(), [&](auto dim) {
    dispatch_bool("sources", sources_ != nullptr, [&](auto sourced) {
      iterate_dim<decltype(dim)::value, decltype(sourced)::value>(count);
    });
  });
}

real CoupledHydroMech::residual_sum(int equation) {
  return dispatch<1, 2, 3>("grid dimensions", dims(), [&](auto dim) {
    return dispatch_bool("sources", sources_ != nullptr, [&](auto sourced) {
      return reduce_residual_sum<decltype(dim)::value, decltype(sourced)::value>(equation);
    });
  });
}

template <int Dim, bool Sourced>
real CoupledHydroMech::reduce_residual_sum(int equation) {
  update_porosity();
  const coupled::Residual<Dim, Sourced> f{pseudo<Dim, Sourced>(), equation, 1, false};
  return exact_sum(ex_, dec_.comm(), layout_.interior(), f);
}

real CoupledHydroMech::volume_balance() {
  return dispatch<1, 2, 3>("grid dimensions", dims(), [&](auto dim) {
    return dispatch_bool("sources", sources_ != nullptr, [&](auto sourced) {
      constexpr int D = decltype(dim)::value;
      constexpr bool S = decltype(sourced)::value;
      update_porosity();
      return exact_sum(ex_, dec_.comm(), layout_.interior(), VolumeResidual<D, S>{pseudo<D, S>()});
    });
  });
}

real CoupledHydroMech::fluid_crossing(real sign) {
  return dispatch<1, 2, 3>("grid dimensions", dims(), [&](auto dim) {
    constexpr int D = decltype(dim)::value;
    update_porosity();
    const Grid& g = dec_.grid();
    coupled::SideOutflow<D> f{pseudo<D>(), {}, {}, {}, {}, sign};
    for (int a = 0; a < D; ++a) {
      f.lo[a] = !g.periodic[a] && dec_.at_low(a);
      f.hi[a] = !g.periodic[a] && dec_.at_high(a);
      f.n[a] = layout_.n[a];
    }
    real area = 1;  // of a face normal to each axis: the cell volume over its spacing
    for (int a = 0; a < D; ++a) area *= g.spacing(a);
    for (int a = 0; a < D; ++a) f.area[a] = area / g.spacing(a);
    return exact_sum(ex_, dec_.comm(), layout_.interior(), f);
  });
}

template <int Dim, bool Sourced>
std::vector<real> CoupledHydroMech::max_residuals() {
  update_porosity();
  const std::array<double, Dim + 2> local = reduce_each<Dim + 2>(
      ex_, layout_.interior(), MaxOp{}, AbsResiduals<Dim, Sourced>{pseudo<Dim, Sourced>()});
  const std::vector<double> m = dec_.comm().max(std::vector<double>(local.begin(), local.end()));
  return std::vector<real>(m.begin(), m.end());
}

// Max-norms, dimensionless: momentum over B, the mass balances over B delta / eta0 (the
// compaction rate of an effective pressure B delta). All equations in one pass.
std::vector<pt::Residual> CoupledHydroMech::residuals() {
  const real delta = std::sqrt(opt_.mat.k0 * opt_.mat.eta0);
  const real momentum = 1 / opt_.mat.buoyancy, mass = opt_.mat.eta0 / (opt_.mat.buoyancy * delta);
  const char* names[5] = {"momentum_x", "momentum_y", "momentum_z", "solid_mass", "fluid_mass"};
  const std::vector<real> norms = dispatch<1, 2, 3>("grid dimensions", dims(), [&](auto dim) {
    return dispatch_bool("sources", sources_ != nullptr, [&](auto sourced) {
      return max_residuals<decltype(dim)::value, decltype(sourced)::value>();
    });
  });
  std::vector<pt::Residual> out;
  for (int n = 0; n < static_cast<int>(norms.size()); ++n) {
    const int e = n < dims() ? n : 3 + (n - dims());
    const real scale = e < 3 ? momentum : mass;
    out.push_back({names[e], norms[n] * scale, scale});
  }
  // A varying viscosity must also be the law's for the iterate.
  if (varying_viscosity()) out.push_back(viscosity_residual());
  if (damping_) {
    std::vector<double> distances;
    for (const pt::Residual& e : out) distances.push_back(e.norm / opt_.solver.tol);
    damping_->observe(solve_iterations_, distances);
  }
  return out;
}

std::vector<Diagnostic> CoupledHydroMech::diagnostics() {
  const PorosityStats s = porosity_stats(ex_, dec_, phi_, opt_.mat.phi0, up_);
  const real v_max = max_magnitude(ex_, dec_, V_[up_]);
  const ChimneyStats c = chimney();
  real volume = 1;
  for (int a = 0; a < dims(); ++a) volume *= dec_.grid().length[a];
  const real solid = volume - s.fluid;
  std::vector<Diagnostic> d{{"pt_iterations", static_cast<real>(last_step_.iterations)}};
  const char* names[5] = {"momentum_x", "momentum_y", "momentum_z", "solid_mass", "fluid_mass"};
  std::size_t r = 0;  // the same columns before the first step (zeros) as after it
  for (int e = 0; e < 5; ++e) {
    if (e < 3 && e >= dims()) continue;
    d.push_back({std::string("residual_") + names[e],
                 r < last_step_.residuals.size() ? last_step_.residuals[r].norm : 0});
    ++r;
  }
  d.insert(d.end(),
           {{"fluid_volume", s.fluid},
            {"solid_volume", solid},
            {"fluid_outflow", outflow_},
            {"fluid_inflow", inflow_},
            {"balance_error", s.fluid > 0 ? std::fabs(balance_) * dt_ / s.fluid : 0},
            {"solid_balance_error", solid > 0 ? std::fabs(solid_balance_) * dt_ / solid : 0},
            {"front_height", c.front},
            {"front_speed", dt_ > 0 ? (c.front - front_start_) / dt_ : 0},
            {"chimney_width", c.width},
            {"pt_Re", Re()},
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
          {"solid_volume", "1", "solid volume: integral of 1 - phi"},
          {"fluid_outflow", "1", "fluid volume leaving through the sides per unit time (Darcy)"},
          {"fluid_inflow", "1", "fluid volume entering through the sides per unit time (Darcy)"},
          {"balance_error", "1", "fluid volume balance error of the step, relative"},
          {"solid_balance_error", "1", "solid volume balance error of the step, relative"},
          {"front_height", "1", "height where phi falls through the chimney threshold, highest"},
          {"front_speed", "1", "speed of the front over the step"},
          {"chimney_width", "1", "chimney width halfway between its base and front"},
          {"pt_Re", "1", "the solid's PT damping Re the step ended with"},
          {"phi_max", "1", "largest porosity"},
          {"peak_height", "1", "height of the porosity maximum (wave position)"},
          {"excess_centroid", "1", "height of the centroid of the porosity excess over phi0"},
          {"solid_velocity_max", "1", "largest solid speed along the up axis"}};
}

}  // namespace staghorn::hydromech
