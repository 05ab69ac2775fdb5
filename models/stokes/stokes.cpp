#include "models/stokes/stokes.hpp"

#include <algorithm>
#include <cmath>

#include "core/boundary.hpp"
#include "core/decimal.hpp"
#include "core/dispatch.hpp"
#include "core/error.hpp"
#include "core/exact_sum.hpp"
#include "core/field_ops.hpp"
#include "core/for_each.hpp"
#include "core/quantile.hpp"
#include "models/staggered_stokes/fields.hpp"
#include "models/staggered_stokes/params.hpp"
#include "models/staggered_stokes/wall_edges.hpp"
#include "models/stokes/march.hpp"
#include "models/stokes/stiff_bodies/stiff_bodies.hpp"

#if defined(__CUDACC__)
#include "models/stokes/tiled.hpp"
constexpr bool kTiledCompiled = true;
#else
constexpr bool kTiledCompiled = false;
#endif

namespace staghorn::stokes {
namespace {

const FieldText kText{"m s-1", "Pa"};

// One explicit diffusion step of a cell field (Räss et al. 2022 smooth the viscosity field this
// way before iterating): out = in + lap(in) / (2 d + 0.1), just under the step's stability limit.
struct SmoothStep {
  View in, out;
  int dims;
  SH_HD void operator()(int i, int j, int k) const {
    using namespace stencil;
    const Off o = in.offset(i, j, k);
    real lap = d2_x(in, o);
    if (dims >= 2) lap += d2_y(in, o);
    if (dims >= 3) lap += d2_z(in, o);
    out.p[o] = in.p[o] + lap / (2 * dims + real(0.1));
  }
};

// A cell field to its logarithm, or back.
struct LogOrExp {
  View f;
  bool exp_back;
  SH_HD void operator()(int i, int j, int k) const {
    f(i, j, k) = exp_back ? exp(f(i, j, k)) : log(f(i, j, k));
  }
};

// P and the normal stresses of the iterations' form (whole strain rates) to the physical ones:
// the isotropic part 2 mu div(v) / 3 of the normal stresses moves into the pressure.
template <int Dim>
struct ToPhysicalStresses {
  Kinematics<Dim> k;
  SH_HD void operator()(int i, int j, int kz) const {
    const State& s = k.s;
    const Off o = s.P.offset(i, j, kz);
    const real iso = 2 * k.m.mu.p[o] * k.mean_normal_rate(o);
    s.P.p[o] -= iso;
    s.Txx.p[o] -= iso;
    if constexpr (Dim >= 2) s.Tyy.p[o] -= iso;
    if constexpr (Dim >= 3) s.Tzz.p[o] -= iso;
  }
};

}  // namespace

Stokes::Stokes(const ModelContext& ctx) : Stokes(ctx, Options::from(ctx.config)) {}

Stokes::~Stokes() = default;

Stokes::Stokes(const ModelContext& ctx, const Options& opt)
    : PtModel(ctx, opt.solver, /*corners=*/true),  // diagonal neighbours in the stencil
      V_(velocity_fields("V", layout_, ex_.backend(), &kText)),
      V_new_(velocity_fields("V_new_", layout_, ex_.backend())),
      V_old_(velocity_fields("V_old_", layout_, ex_.backend())),
      P_("P", Location::cell, layout_, ex_.backend(), "Pa", "pressure"),
      P_new_("P_new", Location::cell, layout_, ex_.backend()),
      P_old_("P_old", Location::cell, layout_, ex_.backend()),
      T_(stress_fields("tau_", layout_, ex_.backend(), &kText)),
      T_new_(stress_fields("tau_new_", layout_, ex_.backend())),
      T_old_(stress_fields("tau_old_", layout_, ex_.backend())),
      mu_("mu", Location::cell, layout_, ex_.backend(), "Pa s", "shear viscosity"),
      mu_max_("mu_max", Location::cell, layout_, ex_.backend()),
      rho_("rho", Location::cell, layout_, ex_.backend(), "kg m-3", "density"),
      opt_(opt),
      walls_{opt_.walls, {}},
      // 32-bit offsets in the tiled kernel: blocks of up to 2^31 points (~1250^3).
      tiled_(opt_.tiled && ctx.dec.grid().dims() == 3 && layout_.count() < (std::size_t(1) << 31)),
      march_(opt_.tiled && ctx.dec.grid().dims() == 3 && !ctx.exec.on_device()),
      r_(opt_.pt.r),
      bodies_(std::make_unique<StiffBodies>()) {
  if (dims() < 2) throw io::ConfigError("grid.n: the stokes model needs 2-D or 3-D grids");
  // Residuals are already dimensionless (docs/models/stokes.md), and continuity often starts at
  // exactly zero (a divergence-free initial flow): relative to it, no tolerance is reachable.
  if (solver_.options().relative)
    throw io::ConfigError(
        "solver.tol_mode: the stokes model needs \"absolute\" (its residual norms are already "
        "scaled by the problem's stress scale)");
  // The unknowns with their next iterates and start-of-step copies, then the material.
  const unsigned all = FieldTable::output | FieldTable::state | FieldTable::unknown;
  fields_.add(P_, all, &P_new_, &P_old_);
  for (int a = 0; a < dims(); ++a) fields_.add(V_[a], all, &V_new_[a], &V_old_[a]);
  for (int c : stress_components(dims())) fields_.add(T_[c], all, &T_new_[c], &T_old_[c]);
  // A power law's viscosity follows the iterations: a retry or a stop goes back to its start too.
  if (opt_.power_law.active()) power_.emplace(layout_, ex_.backend());
  fields_
      .add(mu_, FieldTable::output | FieldTable::state, nullptr,
           power_ ? &power_->mu_start : nullptr)
      .add(rho_, FieldTable::output | FieldTable::state);
  rigid_mobility_ = opt_.rigid_bodies.on ? opt_.rigid_bodies.mobility : 0;
  set_initial();
  // The walls as the initial state set them.
  x_wall_ghosts_ = x_wall_ghosts(walls_, dec_, layout_);
  bodies_->walls = wall_ghosts(walls_, dec_, layout_);
  smooth_viscosity(opt_.smoothing);
  // The power law's reference viscosity is the material's (smoothed) Newtonian one.
  if (power_) copy(ex_, power_->eta0, mu_);
  const Int3& n = dec_.grid().n;
  if (opt_.adaptive_damping) damping_.emplace(opt_.pt.Re, std::max({n.x, n.y, n.z}));
}

void Stokes::smooth_viscosity(int passes) {
  // Geometric: the passes smooth log(mu), so a jump of 10^6 leaves no stiff tail (the arithmetic
  // mean's tail stays 10^4 x the matrix a few cells out, and bridges close inclusions).
  const bool geometric = opt_.geometric_smoothing && passes > 0;
  if (geometric) for_each(ex_, layout_.interior(), LogOrExp{mu_.view(), false});
  for (int s = 0; s < passes; ++s) {
    halo_.exchange({&mu_});
    fill_ghosts(ex_, dec_, mu_, zero_gradient_sides());
    for_each(ex_, layout_.interior(), SmoothStep{mu_.view(), mu_max_.view(), dims()});
    mu_.swap_data(mu_max_);  // mu_max_ is scratch here: refresh() computes it
  }
  if (geometric) for_each(ex_, layout_.interior(), LogOrExp{mu_.view(), true});
}

double Stokes::bytes_per_cell_iteration() const {
  const int d = dims();
  const int unknowns = d + 1 + d * (d + 1) / 2;  // V, P, tau: each read and written once
  return (2 * unknowns + 3) * sizeof(real);      // + mu, mu_max, rho read
}

void Stokes::apply_velocity_walls(std::array<Field, 3>& V, unsigned sides, const Region& within,
                                  Lane lane) {
  GhostFill fill;
  walls_.add_velocities(fill, V, dims(), sides);
  fill.apply(ex_, dec_, lane, within);
}

void Stokes::refresh() {
  halo_.exchange(fields_.with(FieldTable::state));
  apply_velocity_walls(V_);
  for (Field* f : {&P_, &mu_, &rho_, &T_[0], &T_[1], &T_[2]})
    fill_ghosts(ex_, dec_, *f, zero_gradient_sides());
  // The floor and the automatic r from the viscosity at the start (power-law updates keep them:
  // docs/models/stokes.md). Stiff inclusions' rigid modes need r = 1's damping, weak ones converge
  // faster with less ("Accelerated pseudo-transient iterations").
  const real stiffest =
      dec_.comm().max(reduce(ex_, layout_.interior(), MaxOp{}, ValueAt{mu_.view()}));
  const bool need_median = opt_.median_floor || opt_.automatic_r;
  const real median = need_median ? quantile(ex_, dec_.comm(), layout_.interior(), mu_, 0.5) : 0;
  mu_floor_ = opt_.median_floor ? opt_.floor_factor * median : 0;
  r_ = opt_.automatic_r && stiffest > opt_.rigid_bodies.threshold * median ? 1 : opt_.pt.r;
  refresh_mu_max();
  set_rigid_bodies(stiffest);
  copy_unknowns_to_next();  // prescribed walls and ghosts stay put in both
}

Params Stokes::params() const {
  PtChoice choice = opt_.pt;
  choice.cfl = cfl_;  // lowered by retries
  if (damping_) choice.Re = damping_->Re();
  choice.r = r_;  // stokes.r, or its automatic choice (refresh())
  Params p = pt_params(dec_, choice);
  p.mu_floor = mu_floor_;
  return p;
}

State Stokes::state_of(std::array<Field, 3>& V, Field& P, std::array<Field, 6>& T) {
  return {V[0].view(), V[1].view(), V[2].view(), P.view(),    T[0].view(),
          T[1].view(), T[2].view(), T[3].view(), T[4].view(), T[5].view()};
}

void Stokes::begin_solve(real) {
  save_start();  // with a power law, the viscosity too
  iterating_ = true;
  restart_damping();
}

void Stokes::end_step() {
  dispatch<2, 3>("grid dimensions", dims(),
                 [&](auto dim) { to_physical_stresses<decltype(dim)::value>(); });
  iterating_ = false;
}

template <int Dim>
void Stokes::to_physical_stresses() {
  for_each(ex_, layout_.interior(), ToPhysicalStresses<Dim>{{params(), state(), material()}});
  halo_.exchange({&P_, &T_[0], &T_[1], &T_[2]});
  for (Field* f : {&P_, &T_[0], &T_[1], &T_[2]}) fill_ghosts(ex_, dec_, *f, zero_gradient_sides());
}

Params Stokes::physical_params() const {
  Params p = params();
  p.deviatoric = 1;
  return p;
}

Params Stokes::residual_params() const { return iterating_ ? params() : physical_params(); }

void Stokes::retry(real factor) {
  to_step_start();
  cfl_ *= factor;
  restart_damping();
  // A retry also slows the stiff bodies' rigid modes by factor^2 (and drops them below 1/20).
  rigid_mobility_ *= factor * factor;
  if (rigid_mobility_ < real(0.05)) rigid_mobility_ = 0;
  refresh();
}

CarriedState Stokes::carried_state() const {
  CarriedState s = PtModel::carried_state();
  if (opt_.rigid_bodies.on)
    s.emplace_back("rigid_mobility_scale", rigid_mobility_ / opt_.rigid_bodies.mobility);
  if (damping_) s.emplace_back("damping_Re", damping_->Re());
  return s;
}

// A value for a feature this run has off (the restart's physics changed: a warning says so) has
// nothing to set.
bool Stokes::take_carried(const std::string& name, double value) {
  auto refuse = [&](const std::string& range) {
    throw io::ConfigError("carried " + name + " = " + shortest(value) + " is not within " + range);
  };
  if (name == "rigid_mobility_scale") {  // of stokes.rigid_bodies.mobility: powers of 1/4, or 0
    if (!opt_.rigid_bodies.on) return true;
    if (!(value >= 0 && value <= 1)) refuse("[0, 1]");
    rigid_mobility_ = opt_.rigid_bodies.mobility * static_cast<real>(value);  // bodies: refresh()
    return true;
  }
  if (name == "damping_Re") {
    if (!damping_) return true;
    if (!(value > 0 && std::isfinite(value))) refuse("(0, inf)");
    damping_->set_Re(static_cast<real>(value));
    return true;
  }
  return PtModel::take_carried(name, value);
}

// The unknowns and (power law) the viscosity as begin_solve kept them, the stresses physical again.
void Stokes::abandon_step() {
  iterating_ = false;
  PtModel::abandon_step();
}

bool Stokes::tiled_here() const { return kTiledCompiled && tiled_ && ex_.on_device(); }

template <int Dim>
void Stokes::run_iteration(const Pseudo<Dim>& ps, const State& next, const Region& r, Lane lane) {
#if defined(__CUDACC__)
  if constexpr (Dim == 3)
    if (tiled_here()) {
      const Grid& g = dec_.grid();
      bool wall_hi[3];  // as update_wall_edges: the tiled kernel stores those edges itself
      for (int a = 0; a < 3; ++a) wall_hi[a] = !g.periodic[a] && dec_.at_high(a);
      const tiled::Args args = tiled::args_of(ps, next, layout_.n, wall_hi, x_wall_ghosts_);
      return dispatch_index<tiled::kShapeCount>("tiled shape", tiled_shape_, [&](auto shape) {
        constexpr tiled::Shape s = tiled::kShapes[decltype(shape)::value];
        launch_tiled<s.tx, s.ty, s.blocks>(ex_.stream(lane), r, args, s.chunk, tiled_marches_);
      });
    }
#endif
  if constexpr (Dim == 3)
    if (march_) return run_march(ps, next, r);
  // The block size changes no bit (same functor arithmetic), only the GPU's occupancy.
  dispatch_or<256, 128, 512>(threads_, [&](auto threads) {
    for_each(ex_, r, lane, Iteration<Dim, decltype(threads)::value>{ps, next});
  });
}

template <int Dim>
void Stokes::iterate_dim(int count) {
  const Params c = params();
  const std::vector<Field*> out = fields_.next_unknowns();
  // The power law's count of iterations and the stiff bodies' corrections change the host's state
  // from one iteration to the next: those run one by one (period 0).
  const int period = power_ || !bodies_->rigid.empty() ? 0 : 2;
  run_iterations(count, period, [&](int) {
    const Pseudo<Dim> ps{{c, state(), material()}, {}};
    const State next = state_of(V_new_, P_new_, T_new_);
    if (!(Dim == 3 && tiled_here())) update_wall_edges<Dim>(ex_, dec_, layout_, ps, next);
    update_and_exchange(ex_, halo_, split_, out, hide_,
                        [&](const Region& r, Lane lane) { run_iteration<Dim>(ps, next, r, lane); });
    // The tiled kernel stores the x walls' ghosts itself (XWallGhosts). With stiff bodies on a
    // GPU the fill runs on the boundary lane beside the corrections' sums (which read only the
    // stresses); their shift waits for it.
    const bool bodies = !bodies_->rigid.empty();
    const Lane walls_lane = bodies && ex_.on_device() ? Lane::boundary : Lane::inner;
    ex_.order(Lane::inner, walls_lane);
    apply_velocity_walls(V_new_, Dim == 3 && tiled_here() ? Walls::kNotX : Walls::kAllSides,
                         kEverywhere, walls_lane);
    fields_.swap_next();
    if (bodies) accelerate_rigid_bodies(Dim, walls_lane);
    // The nonlinear viscosity follows the velocities inside the PT iterations.
    if (power_ && ++power_->iterations % opt_.power_law.interval == 0) update_viscosity();
  });
}

void Stokes::iterate(int count) {
  dispatch<2, 3>("grid dimensions", dims(),
                 [&](auto dim) { iterate_dim<decltype(dim)::value>(count); });
  solve_iterations_ += count;
}

namespace {
struct CellValue {
  View f;
  real sign;
  SH_HD real operator()(int i, int j, int k) const { return sign * f(i, j, k); }
};
// Each velocity component and P at the cell, then the same negated: their ranges from one pass of
// maxima.
template <int Dim>
struct SignedValues {
  View f[Dim + 1];
  SH_HD Terms<2 * (Dim + 1)> operator()(int i, int j, int k) const {
    Terms<2 * (Dim + 1)> t;
    for (int n = 0; n <= Dim; ++n) {
      t.v[n] = f[n](i, j, k);
      t.v[Dim + 1 + n] = -t.v[n];
    }
    return t;
  }
};
// |R| of every equation at the cell: momentum along each axis, then continuity (AbsResidual's).
template <int Dim>
struct AbsResiduals {
  Kinematics<Dim> k;
  bool carried;
  SH_HD Terms<Dim + 1> operator()(int i, int j, int kz) const {
    Terms<Dim + 1> t;
    for (int e = 0; e < Dim; ++e) t.v[e] = AbsResidual<Dim>{k, e, carried}(i, j, kz);
    t.v[Dim] = AbsResidual<Dim>{k, 3, carried}(i, j, kz);
    return t;
  }
};
// Their squares after an exact scaling of each by a power of two (keeps the squares finite).
template <int Dim>
struct ScaledSquares {
  AbsResiduals<Dim> r;
  real inv[Dim + 1];
  SH_HD Terms<Dim + 1> operator()(int i, int j, int k) const {
    Terms<Dim + 1> t = r(i, j, k);
    for (int e = 0; e <= Dim; ++e) {
      const real x = t.v[e] * inv[e];
      t.v[e] = x * x;
    }
    return t;
  }
};
}  // namespace

template <int Dim>
std::array<real, 2> Stokes::range_scales(real lmax) {
  SignedValues<Dim> values;
  for (int a = 0; a < Dim; ++a) values.f[a] = V_[a].view();
  values.f[Dim] = P_.view();
  const std::array<double, 2 * (Dim + 1)> local =
      reduce_each<2 * (Dim + 1)>(ex_, layout_.interior(), MaxOp{}, values);
  const std::vector<double> m = dec_.comm().max(std::vector<double>(local.begin(), local.end()));
  const auto range = [&](int n) { return real(m[n]) + real(m[Dim + 1 + n]); };
  real v = 0;
  for (int a = 0; a < Dim; ++a) v = std::fmax(v, range(a));
  const real p = range(Dim);
  return {p > 0 ? lmax / p : lmax / stress_scale_, v > 0 ? lmax / v : mu_scale_ / stress_scale_};
}

// Every equation's norm in at most three passes over the grid, whatever the equations: the ranges
// (rms_range), the maxima of |R|, then the exact sums of the scaled squares (rms norms).
template <int Dim>
std::vector<pt::Residual> Stokes::residuals_dim() {
  const Grid& g = dec_.grid();
  real lmax = 0;
  for (int a = 0; a < Dim; ++a) lmax = std::fmax(lmax, g.length[a]);
  const Region in = layout_.interior();
  const Comm& comm = dec_.comm();
  const char* names[4] = {"momentum_x", "momentum_y", "momentum_z", "continuity"};
  const std::array<real, 2> ranges =
      opt_.rms_norm ? range_scales<Dim>(lmax)
                    : std::array<real, 2>{lmax / stress_scale_, mu_scale_ / stress_scale_};
  // rms_range measures the momentum balance of the stresses the iterations carry, as the
  // benchmark of Räss et al. (2022) does; from the first iteration of a solve on (before it, the
  // carried stresses need not belong to the velocities at all).
  const bool carried = opt_.rms_norm && iterating_ && solve_iterations_ > 0;
  const AbsResiduals<Dim> r{{residual_params(), state(), material()}, carried};
  const std::array<double, Dim + 1> local = reduce_each<Dim + 1>(ex_, in, MaxOp{}, r);
  const std::vector<double> maxima = comm.max(std::vector<double>(local.begin(), local.end()));
  std::array<real, Dim + 1> norm;
  for (int e = 0; e <= Dim; ++e) norm[e] = static_cast<real>(maxima[e]);
  if (opt_.rms_norm) {
    // Each square scaled by the power of two just above its largest |R| (exactly: the largest
    // scaled square is then the square of the scaled maximum, its bound for the exact sums).
    ScaledSquares<Dim> squares{r, {}};
    std::array<double, Dim + 1> bounds{};
    std::array<int, Dim + 1> exponent{};
    for (int e = 0; e <= Dim; ++e) {
      const bool scaled = norm[e] > 0 && std::isfinite(norm[e]);
      if (scaled) std::frexp(norm[e], &exponent[e]);
      squares.inv[e] = std::ldexp(real(1), -exponent[e]);
      const real x = norm[e] * squares.inv[e];
      bounds[e] = scaled ? x * x : 0;
    }
    const std::array<double, Dim + 1> sums = exact_sums<Dim + 1>(ex_, comm, in, squares, bounds);
    for (int e = 0; e <= Dim; ++e)
      if (norm[e] > 0 && std::isfinite(norm[e]))
        norm[e] = std::ldexp(real(std::sqrt(sums[e] / g.cells())), exponent[e]);
  }
  // Dimensionless: momentum * L / S, continuity * mu_0 / S (S the stress scale), or the ranges.
  std::vector<pt::Residual> out;
  for (int e = 0; e <= Dim; ++e) {
    const bool continuity = e == Dim;
    const real scale = ranges[continuity ? 1 : 0];
    pt::Residual res{names[continuity ? 3 : e], norm[e] * scale, scale};
    if (continuity && opt_.continuity_tol)
      res.tolerance_factor = *opt_.continuity_tol / opt_.solver.tol;
    out.push_back(res);
  }
  return out;
}

std::vector<pt::Residual> Stokes::residuals() {
  last_residuals_ = dispatch<2, 3>("grid dimensions", dims(),
                                   [&](auto dim) { return residuals_dim<decltype(dim)::value>(); });
  // With a power law the equations are solved when mu is also the flow law's viscosity of v.
  if (power_) last_residuals_.push_back(viscosity_residual());
  if (damping_) observe_residuals(last_residuals_);
  return last_residuals_;
}

void Stokes::restart_damping() {
  solve_iterations_ = 0;
  if (damping_) damping_->restart();
}

void Stokes::observe_residuals(const std::vector<pt::Residual>& r) {
  std::vector<double> distances;
  for (const pt::Residual& e : r)
    distances.push_back(e.norm / (opt_.solver.tol * e.tolerance_factor));
  damping_->observe(solve_iterations_, distances);
}

namespace {
struct Speed2 {
  State s;
  int dims;
  real inv;  // a power of two that keeps the squares from overflowing (exact scaling)
  SH_HD real operator()(int i, int j, int k) const {
    // |v * inv|^2 at the cell centre from the face averages.
    const Off o = s.P.offset(i, j, k);
    real v = stencil::av_xa(s.Vx, o) * inv;
    real q = v * v;
    v = stencil::av_ya(s.Vy, o) * inv;
    q += v * v;
    if (dims == 3) v = stencil::av_za(s.Vz, o) * inv, q += v * v;
    return q;
  }
};
// The largest |component| of v at the cell centre.
struct MaxComponent {
  State s;
  int dims;
  SH_HD real operator()(int i, int j, int k) const {
    const Off o = s.P.offset(i, j, k);
    real m = fmax(fabs(stencil::av_xa(s.Vx, o)), fabs(stencil::av_ya(s.Vy, o)));
    if (dims == 3) m = fmax(m, fabs(stencil::av_za(s.Vz, o)));
    return m;
  }
};
}  // namespace

std::vector<io::SeriesColumn> Stokes::diagnostic_columns() const {
  return {{"v_rms", "m s-1", "root mean square velocity"},
          {"v_max", "m s-1", "largest speed"},
          {"P_max", "Pa", "largest pressure"},
          {"P_min", "Pa", "smallest pressure"},
          {"damping_Re", "1", "numerical Reynolds number of the PT damping (tuned: Re null)"}};
}

std::vector<Diagnostic> Stokes::diagnostics() {
  const Region in = layout_.interior();
  const Comm& comm = dec_.comm();
  const real cells = static_cast<real>(dec_.grid().cells());
  // Speeds above ~1e154 would square to Inf (a finite state reported as v_max = inf): the squares
  // are taken of v / 2^e, with 2^e about the largest component, and scaled back.
  const real bound = comm.max(reduce(ex_, in, MaxOp{}, MaxComponent{state(), dims()}));
  int e = 0;
  if (bound > 0 && std::isfinite(bound)) std::frexp(bound, &e);
  const Speed2 speed2{state(), dims(), std::ldexp(real(1), -e)};
  const real sum2 = exact_sum(ex_, comm, in, speed2);
  const real max2 = comm.max(reduce(ex_, in, MaxOp{}, speed2));
  std::vector<Diagnostic> d{
      {"v_rms", std::ldexp(std::sqrt(sum2 / cells), e)},
      {"v_max", std::ldexp(std::sqrt(max2), e)},
      {"P_max", comm.max(reduce(ex_, in, MaxOp{}, CellValue{P_.view(), 1}))},
      {"P_min", -comm.max(reduce(ex_, in, MaxOp{}, CellValue{P_.view(), -1}))}};
  // What the solver chose in the latest step: the damping it ended with (the driver's columns
  // give its iterations), then its final residuals.
  d.push_back({"damping_Re", damping_ ? damping_->Re() : opt_.pt.Re});
  if (last_residuals_.empty()) residuals();
  for (const pt::Residual& r : last_residuals_) d.push_back({"residual_" + r.equation, r.norm});
  return d;
}

}  // namespace staghorn::stokes
