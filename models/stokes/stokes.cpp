#include "models/stokes/stokes.hpp"

#include <cmath>

#include "core/boundary.hpp"
#include "core/error.hpp"
#include "core/field_ops.hpp"
#include "core/for_each.hpp"
#include "models/stokes/wall_edges.hpp"

#if defined(__CUDACC__)
#include "models/stokes/tiled.hpp"
constexpr bool kTiledCompiled = true;
#else
constexpr bool kTiledCompiled = false;
#endif

namespace staghorn::stokes {
namespace {

std::array<Field, 3> faces(const char* prefix, const Layout& l, Backend b, bool described) {
  const std::string p(prefix);
  auto field = [&](int a, Location loc) {
    const std::string axis = a == 0 ? "x" : (a == 1 ? "y" : "z");
    return described ? Field(p + axis, loc, l, b, "m s-1", "velocity along " + axis)
                     : Field(p + axis, loc, l, b);
  };
  return {field(0, Location::face_x), field(1, Location::face_y), field(2, Location::face_z)};
}

std::array<Field, 6> stresses(const char* prefix, const Layout& l, Backend b, bool described) {
  const char* comp[6] = {"xx", "yy", "zz", "xy", "xz", "yz"};
  const Location loc[6] = {Location::cell,    Location::cell,    Location::cell,
                           Location::edge_xy, Location::edge_xz, Location::edge_yz};
  auto field = [&](int c) {
    const std::string name = std::string(prefix) + comp[c];
    return described ? Field(name, loc[c], l, b, "Pa", std::string("deviatoric stress ") + comp[c])
                     : Field(name, loc[c], l, b);
  };
  return {field(0), field(1), field(2), field(3), field(4), field(5)};
}

// Stress components of a Dim-dimensional run: xx, yy, xy in 2-D; all six in 3-D.
std::vector<int> stress_components(int dims) {
  return dims == 2 ? std::vector<int>{0, 1, 3} : std::vector<int>{0, 1, 2, 3, 4, 5};
}

Wall parse_wall(const std::string& s) {
  if (s == "no_slip") return Wall::no_slip;
  if (s == "prescribed") return Wall::prescribed;
  return Wall::free_slip;
}

const char* kSides[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};

std::array<Wall, 6> walls_from(const io::json& c) {
  std::array<Wall, 6> w;
  for (int s = 0; s < 6; ++s)
    w[s] =
        parse_wall(io::at_path(c, std::string("stokes.boundary.") + kSides[s]).get<std::string>());
  return w;
}

// Ghost g of a wall takes its value from the point mirrored across the wall, m = mirror - g:
// zero gradient (free slip of a tangential velocity), or a value imposed on the wall (on the
// wall face itself for the normal velocity, by an antisymmetric ghost for a tangential one).
// One launch does one wall for every velocity component (each over its own range along the
// axis): the walls cost 2 d launches per iteration, not 2 d^2.
struct WallGhosts {
  View f[3];
  int components, axis;
  int lo[3], hi[3];  // the component's points along the axis: lo <= g < hi
  int mirror[3];
  bool neumann[3];
  real value[3];
  SH_HD void operator()(int i, int j, int k) const {
    for (int c = 0; c < components; ++c) {
      int idx[3] = {i, j, k};
      const int g = idx[axis];
      if (g < lo[c] || g >= hi[c]) continue;
      idx[axis] = mirror[c] - g;
      const real inside = f[c](idx[0], idx[1], idx[2]);
      real& ghost = f[c](i, j, k);
      if (neumann[c]) {
        ghost = inside;
      } else {
        ghost = (idx[axis] == g) ? value[c] : 2 * value[c] - inside;
      }
    }
  }
};

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

}  // namespace

Stokes::Stokes(const ModelContext& ctx)
    : dec_(ctx.dec),
      ex_(ctx.exec),
      layout_(ctx.layout()),
      V_(faces("V", layout_, ex_.backend(), true)),
      V_new_(faces("V_new_", layout_, ex_.backend(), false)),
      V_old_(faces("V_old_", layout_, ex_.backend(), false)),
      P_("P", Location::cell, layout_, ex_.backend(), "Pa", "pressure"),
      P_new_("P_new", Location::cell, layout_, ex_.backend()),
      P_old_("P_old", Location::cell, layout_, ex_.backend()),
      T_(stresses("tau_", layout_, ex_.backend(), true)),
      T_new_(stresses("tau_new_", layout_, ex_.backend(), false)),
      T_old_(stresses("tau_old_", layout_, ex_.backend(), false)),
      mu_("mu", Location::cell, layout_, ex_.backend(), "Pa s", "shear viscosity"),
      mu_max_("mu_max", Location::cell, layout_, ex_.backend()),
      rho_("rho", Location::cell, layout_, ex_.backend(), "kg m-3", "density"),
      halo_(ctx.dec, layout_, ctx.exec, /*corners=*/true),  // diagonal neighbours in the stencil
      split_(split_for(halo_, layout_.interior(), ctx.boundary_width())),
      hide_(ctx.hide_communication() && halo_.remote()),
      walls_(walls_from(ctx.config)),
      Re_(io::at_path(ctx.config, "stokes.Re").get<real>()),
      r_(io::at_path(ctx.config, "stokes.r").get<real>()),
      cfl_(io::at_path(ctx.config, "solver.cfl").get<real>()),
      harmonic_(io::at_path(ctx.config, "stokes.viscosity_average").get<std::string>() ==
                "harmonic"),
      // 32-bit offsets in the tiled kernel: blocks of up to 2^31 points (~1250^3).
      tiled_(io::at_path(ctx.config, "stokes.kernel").get<std::string>() == "tiled" &&
             ctx.dec.grid().dims() == 3 && layout_.count() < (std::size_t(1) << 31)),
      solver_(pt::Options::from(ctx.config)) {
  if (dims() < 2) throw io::ConfigError("grid.n: the stokes model needs 2-D or 3-D grids");
  // Residuals are already dimensionless (docs/models/stokes.md), and continuity often starts at
  // exactly zero (a divergence-free initial flow): relative to it, no tolerance is reachable.
  if (solver_.options().relative)
    throw io::ConfigError(
        "solver.tol_mode: the stokes model needs \"absolute\" (its residual norms are already "
        "scaled by the problem's stress scale)");
  for (int a = 0; a < 3; ++a) g_[a] = io::at_path(ctx.config, "stokes.gravity")[a].get<real>();
  set_initial(ctx.config);
  smooth_viscosity(io::at_path(ctx.config, "stokes.smoothing").get<int>());
}

void Stokes::smooth_viscosity(int passes) {
  SideBcs zero_gradient;
  for (Bc& b : zero_gradient) b = {BcKind::neumann, 0};
  for (int s = 0; s < passes; ++s) {
    halo_.exchange({&mu_});
    apply_boundaries(ex_, dec_, mu_, zero_gradient);
    for_each(ex_, layout_.interior(), SmoothStep{mu_.view(), mu_max_.view(), dims()});
    mu_.swap_data(mu_max_);  // mu_max_ is scratch here: refresh() computes it
  }
}

std::vector<Field*> Stokes::unknowns(std::array<Field, 3>& V, Field& P, std::array<Field, 6>& T) {
  std::vector<Field*> out{&P};
  for (int a = 0; a < dims(); ++a) out.push_back(&V[a]);
  for (int c : stress_components(dims())) out.push_back(&T[c]);
  return out;
}

std::vector<const Field*> Stokes::output_fields() const {
  std::vector<const Field*> out{&P_};
  for (int a = 0; a < dims(); ++a) out.push_back(&V_[a]);
  for (int c : stress_components(dims())) out.push_back(&T_[c]);
  out.push_back(&mu_);
  out.push_back(&rho_);
  return out;
}

std::vector<Field*> Stokes::state_fields() {
  std::vector<Field*> out = unknowns(V_, P_, T_);
  out.push_back(&mu_);
  out.push_back(&rho_);
  return out;
}

double Stokes::bytes_per_cell_iteration() const {
  const int d = dims();
  const int unknowns = d + 1 + d * (d + 1) / 2;  // V, P, tau: each read and written once
  return (2 * unknowns + 3) * sizeof(real);      // + mu, mu_max, rho read
}

void Stokes::apply_velocity_walls(std::array<Field, 3>& V) {
  // Along each axis in turn (a later axis's ghosts take the corners an earlier one wrote).
  const Grid& g = dec_.grid();
  for (int a = 0; a < dims(); ++a) {
    if (g.periodic[a]) continue;
    const int n = layout_.n[a], h = layout_.h[a];
    for (int side = 0; side < 2; ++side) {
      const Wall w = walls_[2 * a + side];
      if (w == Wall::prescribed || (side == 0 ? !dec_.at_low(a) : !dec_.at_high(a))) continue;
      WallGhosts k{};
      k.components = dims();
      k.axis = a;
      for (int c = 0; c < dims(); ++c) {
        const bool normal = a == c;  // the wall's normal velocity (staggered along a)
        k.f[c] = V[c].view();
        // The normal velocity's wall point is face 0 (face n on the high side).
        k.lo[c] = side == 0 ? -h : n;
        k.hi[c] = side == 0 ? (normal ? 1 : 0) : n + h;
        k.mirror[c] = side == 0 ? (normal ? 0 : -1) : (normal ? 2 * n : 2 * n - 1);
        k.neumann[c] = !normal && w == Wall::free_slip;
        k.value[c] = normal ? wall_normal_[2 * a + side] : 0;
      }
      Region r = layout_.all();
      r.lo[a] = side == 0 ? -h : n;
      r.hi[a] = side == 0 ? 1 : n + h;
      for_each(ex_, r, k);
    }
  }
}

void Stokes::refresh() {
  std::vector<Field*> all = unknowns(V_, P_, T_);
  for (Field* f : {&mu_, &rho_}) all.push_back(f);
  halo_.exchange(all);
  apply_velocity_walls(V_);
  SideBcs zero_gradient;
  for (Bc& b : zero_gradient) b = {BcKind::neumann, 0};
  for (Field* f : {&P_, &mu_, &rho_, &T_[0], &T_[1], &T_[2]})
    apply_boundaries(ex_, dec_, *f, zero_gradient);
  const Region in = layout_.interior();
  if (dims() == 2) {
    for_each(ex_, in, LocalMax<2>{mu_.view(), mu_max_.view()});
  } else {
    for_each(ex_, in, LocalMax<3>{mu_.view(), mu_max_.view()});
  }
  halo_.exchange({&mu_max_});
  apply_boundaries(ex_, dec_, mu_max_, zero_gradient);
  rigid_.reset();
  if (stiff_ && stiff_->gain > 0) {
    const StiffInclusion& s = *stiff_;
    rigid_.emplace(dec_, layout_, ex_, mu_, s.threshold, s.centre, s.radius, s.margin, s.gain);
  }
  // The new-value buffers start equal to the state: prescribed walls and ghosts stay put in both.
  for (int a = 0; a < 3; ++a) copy(ex_, V_new_[a], V_[a]);
  for (int c = 0; c < 6; ++c) copy(ex_, T_new_[c], T_[c]);
  copy(ex_, P_new_, P_);
}

Params Stokes::params() const {
  const Grid& g = dec_.grid();
  Params p;
  p.rdx = 1 / g.spacing(0);
  p.rdy = 1 / g.spacing(1);
  p.rdz = dims() >= 3 ? 1 / g.spacing(2) : 0;
  real dmin = g.spacing(0), lmax = g.length[0];
  for (int a = 1; a < dims(); ++a) {
    dmin = std::fmin(dmin, g.spacing(a));
    lmax = std::fmax(lmax, g.length[a]);
  }
  // Räss et al. (2022): Vp dtau = CFL dx_min / sqrt(dims), rho~ = Re mu_max / (Vp L),
  // G~ = rho~ Vp^2 / (r + 2), K~ = r G~.
  const real vp_dtau = cfl_ * dmin / std::sqrt(real(dims()));
  p.gdt = Re_ * vp_dtau / (lmax * (r_ + 2));
  p.r = r_;
  p.vdt = vp_dtau * lmax / Re_;
  for (int a = 0; a < 3; ++a) {
    p.g[a] = g_[a];
    p.wall_lo[a] = a < dims() && !g.periodic[a] && dec_.at_low(a);
  }
  p.harmonic = harmonic_;
  return p;
}

State Stokes::state_of(std::array<Field, 3>& V, Field& P, std::array<Field, 6>& T) {
  return {V[0].view(), V[1].view(), V[2].view(), P.view(),    T[0].view(),
          T[1].view(), T[2].view(), T[3].view(), T[4].view(), T[5].view()};
}

StepReport Stokes::advance(real dt) {
  const pt::SolveReport r = solver_.solve(*this, dt);
  return {r.iterations, r.residuals};
}

void Stokes::begin_solve(real) {
  for (int a = 0; a < 3; ++a) copy(ex_, V_old_[a], V_[a]);
  for (int c = 0; c < 6; ++c) copy(ex_, T_old_[c], T_[c]);
  copy(ex_, P_old_, P_);
}

void Stokes::retry(real factor) {
  for (int a = 0; a < 3; ++a) copy(ex_, V_[a], V_old_[a]);
  for (int c = 0; c < 6; ++c) copy(ex_, T_[c], T_old_[c]);
  copy(ex_, P_, P_old_);
  cfl_ *= factor;
  // The rigid-body acceleration is the likelier cause of a divergence (its gain is a heuristic,
  // docs/models/stokes.md): each retry also divides it by factor^-2, and drops it below 1.
  if (stiff_)
    stiff_->gain = stiff_->gain * factor * factor >= 1 ? stiff_->gain * factor * factor : 0;
  refresh();
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
      return launch_tiled(ex_.stream(lane), r, tiled::args_of(ps, next, layout_.n, wall_hi));
    }
#endif
  // The block size changes no bit (same functor arithmetic), only the GPU's occupancy.
  if (threads_ == 128) return for_each(ex_, r, lane, Iteration<Dim, 128>{ps, next});
  if (threads_ == 512) return for_each(ex_, r, lane, Iteration<Dim, 512>{ps, next});
  for_each(ex_, r, lane, Iteration<Dim>{ps, next});
}

template <int Dim>
void Stokes::iterate_dim(int count) {
  const Params c = params();
  const std::vector<Field*> out = unknowns(V_new_, P_new_, T_new_);
  for (int it = 0; it < count; ++it) {
    const Pseudo<Dim> ps{{c, state(), material()}};
    const State next = state_of(V_new_, P_new_, T_new_);
    if (!(Dim == 3 && tiled_here())) update_wall_edges<Dim>(ex_, dec_, layout_, ps, next);
    update_and_exchange(ex_, halo_, split_, out, hide_,
                        [&](const Region& r, Lane lane) { run_iteration<Dim>(ps, next, r, lane); });
    apply_velocity_walls(V_new_);
    for (int a = 0; a < Dim; ++a) V_[a].swap_data(V_new_[a]);
    for (int s : stress_components(Dim)) T_[s].swap_data(T_new_[s]);
    P_.swap_data(P_new_);
    if (rigid_) accelerate_rigid_body(Dim);
  }
}

void Stokes::accelerate_rigid_body(int dims) {
  rigid_->accelerate(V_, V_new_);  // V_new_ holds the previous iterate
  std::vector<Field*> v;
  for (int a = 0; a < dims; ++a) v.push_back(&V_[a]);
  halo_.exchange(v);
  apply_velocity_walls(V_);
}

void Stokes::iterate(int count) {
  if (dims() == 2) return iterate_dim<2>(count);
  iterate_dim<3>(count);
}

template <int Dim>
std::vector<pt::Residual> Stokes::residuals_dim() {
  const Grid& g = dec_.grid();
  real lmax = 0;
  for (int a = 0; a < Dim; ++a) lmax = std::fmax(lmax, g.length[a]);
  const Kinematics<Dim> kin{params(), state(), material()};
  const Region in = layout_.interior();
  const char* names[4] = {"momentum_x", "momentum_y", "momentum_z", "continuity"};
  // Dimensionless: momentum * L / S, continuity * mu_0 / S (S the stress scale).
  std::vector<pt::Residual> out;
  for (int e = 0; e < 4; ++e) {
    if (e < 3 && e >= Dim) continue;
    const real local = reduce(ex_, in, MaxOp{}, AbsResidual<Dim>{kin, e});
    const real scale = e < 3 ? lmax / stress_scale_ : mu_scale_ / stress_scale_;
    out.push_back({names[e], dec_.comm().max(local) * scale});
  }
  return out;
}

std::vector<pt::Residual> Stokes::residuals() {
  last_ = dims() == 2 ? residuals_dim<2>() : residuals_dim<3>();
  return last_;
}

namespace {
struct Speed2 {
  State s;
  int dims;
  SH_HD real operator()(int i, int j, int k) const {
    // |v|^2 at the cell centre from the face averages.
    const Off o = s.P.offset(i, j, k);
    real v = stencil::av_xa(s.Vx, o);
    real q = v * v;
    v = stencil::av_ya(s.Vy, o);
    q += v * v;
    if (dims == 3) v = stencil::av_za(s.Vz, o), q += v * v;
    return q;
  }
};
struct CellValue {
  View f;
  real sign;
  SH_HD real operator()(int i, int j, int k) const { return sign * f(i, j, k); }
};
}  // namespace

std::vector<io::SeriesColumn> Stokes::diagnostic_columns() const {
  return {{"v_rms", "m s-1", "root mean square velocity"},
          {"v_max", "m s-1", "largest speed"},
          {"P_max", "Pa", "largest pressure"},
          {"P_min", "Pa", "smallest pressure"}};
}

std::vector<Diagnostic> Stokes::diagnostics() {
  const Region in = layout_.interior();
  const Comm& comm = dec_.comm();
  const real cells = static_cast<real>(dec_.grid().cells());
  const real sum2 = comm.sum(reduce(ex_, in, SumOp{}, Speed2{state(), dims()}));
  const real max2 = comm.max(reduce(ex_, in, MaxOp{}, Speed2{state(), dims()}));
  std::vector<Diagnostic> d{
      {"v_rms", std::sqrt(sum2 / cells)},
      {"v_max", std::sqrt(max2)},
      {"P_max", comm.max(reduce(ex_, in, MaxOp{}, CellValue{P_.view(), 1}))},
      {"P_min", -comm.max(reduce(ex_, in, MaxOp{}, CellValue{P_.view(), -1}))}};
  if (last_.empty()) residuals();
  for (const pt::Residual& r : last_) d.push_back({"residual_" + r.equation, r.norm});
  return d;
}

}  // namespace staghorn::stokes
