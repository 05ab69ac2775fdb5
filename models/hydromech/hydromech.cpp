#include "models/hydromech/hydromech.hpp"

#include <array>
#include <cmath>

#include "core/dispatch.hpp"
#include "core/exact_sum.hpp"
#include "core/field_ops.hpp"
#include "core/for_each.hpp"
#include "core/for_each_regions.hpp"
#include "models/hydromech/config.hpp"
#include "models/hydromech/porosity_stats.hpp"
#include "models/hydromech/rows.hpp"

namespace staghorn::hydromech {
namespace {

// A field's value at a cell times a factor (a stored residual's R dV), as the functor of a sum.
struct ScaledValueAt {
  View f;
  real factor;
  SH_HD real operator()(int i, int j, int k) const { return f(i, j, k) * factor; }
};

// The halo porosity of axis s's slab (for_each_regions: the slabs of all axes in one launch).
struct SlabPorosity {
  HaloPorosity axis[3];
  SH_HD void operator()(int s, int i, int j, int k) const { axis[s](i, j, k); }
};

}  // namespace

HydroMech::HydroMech(const ModelContext& ctx) : HydroMech(ctx, Options::from(ctx.config)) {}

HydroMech::HydroMech(const ModelContext& ctx, const Options& opt)
    : PtModel(ctx, opt.solver, /*corners=*/false),  // 7-point stencils
      up_(ctx.dec.grid().dims() - 1),
      kernel_(opt.kernel),
      phi_("phi", Location::cell, layout_, ex_.backend(), "1", "porosity"),
      Pe_("Pe", Location::cell, layout_, ex_.backend(), "1",
          "effective pressure (total minus fluid pressure)"),
      phi_old_("phi_old", Location::cell, layout_, ex_.backend()),
      Pe_new_("Pe_new", Location::cell, layout_, ex_.backend()),
      dPedtau_("dPedtau", Location::cell, layout_, ex_.backend()),
      Pe_start_("Pe_start", Location::cell, layout_, ex_.backend()),
      phi_it_("phi_it", Location::cell, layout_, ex_.backend()),
      phi_it_new_("phi_it_new", Location::cell, layout_, ex_.backend()),
      pe_bcs_(opt.sides),
      mat_(opt.material) {
  // A retry starts again from Pe = 0 (phi has not moved); a stop within a solve goes back to Pe's
  // start copy, so that the snapshot written then is the last completed step's.
  fields_.add(phi_, FieldTable::output | FieldTable::state)
      .add(Pe_, FieldTable::output | FieldTable::state | FieldTable::unknown, &Pe_new_, &Pe_start_)
      .add(dPedtau_, FieldTable::pseudo_rate);
  set_initial(opt.initial, opt.materials);
}

Coefficients HydroMech::coefficients() const {
  const Grid& g = dec_.grid();
  Coefficients co{mat_, dt_, {}, {}, 0, 0, static_cast<float>(cfl_)};
  co.rdt = dt_ > 0 ? 1 / dt_ : 0;
  for (int a = 0; a < 3; ++a) {
    co.rdx[a] = 1 / g.spacing(a);
    co.body[a] = a == up_ ? mat_.buoyancy : 0;
  }
  for (int a = 0; a < g.dims(); ++a) co.sum_rdx2 += co.rdx[a] * co.rdx[a];
  co.slowest = g.slowest_mode();
  return co;
}

void HydroMech::refresh() {
  phi_it_valid_ = false;
  halo_.exchange({&phi_, &Pe_});
  apply_porosity_ghosts();
  apply_pe_boundaries(ex_, dec_, Pe_, pe_bcs_, coefficients().body);
}

void HydroMech::begin_solve(real dt) {
  dt_ = dt;
  phi_it_valid_ = false;
  copy(ex_, phi_old_, phi_);  // halos and ghosts included
  save_start();               // Pe_start_, no pseudo-rate
}

void HydroMech::end_step() {
  balance_ = residual_reduce(false);  // before phi moves on: R belongs to (phi_old, Pe)
  for_each(ex_, layout_.interior(), Lane::inner,
           PorosityUpdate{mat_, dt_, phi_.view(), phi_old_.view(), Pe_.view()});
  halo_.exchange({&phi_});
  apply_porosity_ghosts();
}

// Zero gradient, but extrapolated from the inside at an open side: the next step's phi_old ghost
// there, with the mirrored Pe ghost, gives a second-order ghost porosity (boundary.hpp).
void HydroMech::apply_porosity_ghosts() {
  fill_ghosts(ex_, dec_, phi_, zero_gradient_sides());
  extrapolate_porosity_at_open_sides(ex_, dec_, phi_, pe_bcs_, 0);
}

// Restarts from Pe = 0 (phi has not moved: it follows Pe only once the step converges).
void HydroMech::retry(real factor) {
  phi_it_valid_ = false;
  fill(ex_, Pe_, 0);
  fill(ex_, dPedtau_, 0);
  apply_pe_boundaries(ex_, dec_, Pe_, pe_bcs_, coefficients().body);
  cfl_ *= factor;
}

HydroMech::Kernel HydroMech::kernel_in_use() const {
  if (kernel_ == Kernel::automatic || kernel_ == Kernel::rows)
    return ex_.on_device() ? Kernel::pairs : Kernel::rows;
  return kernel_;
}

// The kernels without a stored porosity: generic and rows.
template <int Dim>
void HydroMech::iterate_dim(int count) {
  const Coefficients co = coefficients();
  const bool rows = kernel_in_use() == Kernel::rows;
  const RowEndGhosts ends = pe_row_end_ghosts(dec_, layout_, pe_bcs_, co.body);
  const std::vector<Field*> next = fields_.next_unknowns();
  for (int it = 0; it < count; ++it) {
    update_and_exchange(ex_, halo_, split_, next, hide_, [&](const Region& r, Lane lane) {
      const View P = Pe_.view(), fo = phi_old_.view(), Pn = Pe_new_.view(), V = dPedtau_.view();
      // n = 3 compiled in, as for the stored kernels: no pow in the CPU's row loops.
      dispatch_or<-1, 3>(mat_.n_int, [&](auto n) {
        constexpr int N = decltype(n)::value;
        if (rows) return iterate_rows<Dim, N>(co, P, fo, Pn, V, ends, r);
        for_each(ex_, r, lane, Iteration<Dim, N>{co, P, fo, Pn, V});
      });
    });
    // The rows kernel filled the x sides' ghosts as it wrote the rows.
    if (rows)
      apply_pe_boundaries_beyond_x(ex_, dec_, Pe_new_, pe_bcs_, co.body);
    else
      apply_pe_boundaries(ex_, dec_, Pe_new_, pe_bcs_, co.body);
    fields_.swap_next();
  }
}

// phi_it on the halo and ghost slabs from the exchanged Pe and its ghosts: the stencils' porosity
// there without a second field in the exchange (the same formula as the owner's, so the same bits).
// One launch over the three axes' slabs (each its own functor); edges lie in two slabs and get
// the same value from each. An axis whose two sides' ghosts the kernel set (`set`) is skipped.
void HydroMech::porosity_of_halo(const FaceGhosts& set) {
  const Layout& l = layout_;
  std::array<Region, 3> slabs{};  // empty along an axis without a halo
  SlabPorosity op{};
  for (int a = 0; a < 3; ++a) {
    op.axis[a] =
        HaloPorosity{mat_, dt_, phi_it_.view(), phi_old_.view(), Pe_.view(), a, l.n[a], l.h[a]};
    if (l.h[a] == 0 || (set.sets(2 * a) && set.sets(2 * a + 1))) continue;
    slabs[a] = l.all();
    slabs[a].lo[a] = 0;
    slabs[a].hi[a] = 2 * l.h[a];
  }
  for_each_regions<3>(ex_, slabs, Lane::inner, op);
}

// The pairs kernel needs every region it runs on to start and end at an even x.
bool HydroMech::pairs_fit() const {
  bool even = layout_.n.x % 2 == 0;
  for (const Region& r : split_.shell) even = even && r.lo.x % 2 == 0 && r.hi.x % 2 == 0;
  return even;
}

template <int Dim>
void HydroMech::update_stored(const Coefficients& co, const FaceGhosts& ghosts, unsigned copies,
                              Region r, Lane lane) {
  const View P = Pe_.view(), f = phi_it_.view(), fo = phi_old_.view(), Pn = Pe_new_.view(),
             fn = phi_it_new_.view(), V = dPedtau_.view();
  if (kernel_in_use() == Kernel::pairs && pairs_fit()) {
    // The GPU's hot path; n = 3 (Carman-Kozeny) compiled in: the same bits, fewer instructions.
    r.lo.x /= 2, r.hi.x /= 2;
    return dispatch_or<-1, 3>(mat_.n_int, [&](auto n) {
      using Kernel = PairStoredIteration<Dim, decltype(n)::value>;
      for_each(ex_, r, lane, Kernel{co, P, f, fo, Pn, fn, V, ghosts, copies});
    });
  }
  // n = 3 compiled in here too: the CPU's row loops then need no pow.
  dispatch_or<-1, 3>(mat_.n_int, [&](auto n) {
    using Kernel = StoredIteration<Dim, decltype(n)::value>;
    for_each(ex_, r, lane, Kernel{co, P, f, fo, Pn, fn, V, ghosts, copies});
  });
}

// The face ghosts the stored kernels set on this block's physical sides (FaceGhosts::of).
FaceGhosts HydroMech::face_ghosts(const Coefficients& co) const {
  return FaceGhosts::of(dec_, layout_, pe_rules(dec_.grid(), pe_bcs_, co.body));
}

// Of those, the sides where a ghost's Pe and porosity are the cell's (GhostStore::copies): closed
// sides without buoyancy across them, whose porosity ghosts apply_porosity_ghosts keeps at zero
// gradient.
unsigned HydroMech::ghost_copies(const FaceGhosts& ghosts) const {
  unsigned copies = 0;
  for (int s = 0; s < 6; ++s)
    if (ghosts.sets(s) && pe_bcs_[s].kind == PeBcKind::closed &&
        ghosts.rule[s].kind == GhostRule::symmetric && ghosts.rule[s].step == 0)
      copies |= 1u << s;
  return copies;
}

template <int Dim>
void HydroMech::iterate_stored(int count) {
  const Coefficients co = coefficients();
  if (!phi_it_valid_)  // a new step, a retry or new state: phi_it from Pe everywhere, halo included
    for_each(ex_, layout_.all(),
             PorosityUpdate{mat_, dt_, phi_it_.view(), phi_old_.view(), Pe_.view()});
  const FaceGhosts ghosts = face_ghosts(co);
  const unsigned copies = ghost_copies(ghosts);
  const std::vector<Field*> next = fields_.next_unknowns();
  run_iterations(count, 2, [&](int) {
    update_and_exchange(ex_, halo_, split_, next, hide_, [&](const Region& r, Lane lane) {
      update_stored<Dim>(co, ghosts, copies, r, lane);
    });
    if (!ghosts.any()) apply_pe_boundaries(ex_, dec_, Pe_new_, pe_bcs_, co.body);
    fields_.swap_next();
    phi_it_.swap_data(phi_it_new_);
    porosity_of_halo(ghosts);
  });
  phi_it_valid_ = true;
}

void HydroMech::iterate(int count) {
  const Kernel k = kernel_in_use();
  const bool stored = k == Kernel::stored || k == Kernel::pairs;
  dispatch<1, 2, 3>("grid dimensions", dec_.grid().dims(), [&](auto dim) {
    constexpr int Dim = decltype(dim)::value;
    stored ? iterate_stored<Dim>(count) : iterate_dim<Dim>(count);
  });
}

template <int Dim>
real HydroMech::residual_sum(bool absolute) {
  const Grid& g = dec_.grid();
  real volume = 1;
  for (int a = 0; a < g.dims(); ++a) volume *= g.spacing(a);
  const CellResidual<Dim> f{coefficients(), Pe_.view(), phi_old_.view(), absolute ? 1 : volume,
                            absolute};
  const Region in = layout_.interior();
  if (kernel_in_use() == Kernel::rows) {  // the CPU: the rows kernel's own passes
    const View P = Pe_.view(), fo = phi_old_.view();
    const bool n3 = mat_.n_int == 3;
    if (absolute)
      return dec_.comm().max(n3 ? max_abs_residual_rows<Dim, 3>(f.co, P, fo, in)
                                : max_abs_residual_rows<Dim, -1>(f.co, P, fo, in));
    // R into dPe/dtau (free between the solves: the next one starts it from 0), then the exact sum
    // of R dV: CellResidual's terms, the same bits, without its 7 porosities per cell.
    const View R = dPedtau_.view();
    n3 ? residual_rows<Dim, 3>(f.co, P, fo, R, in) : residual_rows<Dim, -1>(f.co, P, fo, R, in);
    return exact_sum(ex_, dec_.comm(), in, ScaledValueAt{R, volume});
  }
  return absolute ? dec_.comm().max(reduce(ex_, in, MaxOp{}, f))
                  : exact_sum(ex_, dec_.comm(), in, f);
}

// absolute: max |R|; otherwise dt |sum R dV| over the fluid volume: the step's relative balance
// error (sum R dV = outflux through the sides + the fluid volume's rate of change).
real HydroMech::residual_reduce(bool absolute) {
  const int dims = dec_.grid().dims();
  const real s = dims == 1   ? residual_sum<1>(absolute)
                 : dims == 2 ? residual_sum<2>(absolute)
                             : residual_sum<3>(absolute);
  return s;
}

std::vector<pt::Residual> HydroMech::residuals() { return {{"Pe", residual_reduce(true)}}; }

std::vector<Diagnostic> HydroMech::diagnostics() {
  const PorosityStats s = porosity_stats(ex_, dec_, phi_, mat_.phi0, up_);
  const real residual = last_step_.residuals.empty() ? 0 : last_step_.residuals.front().norm;
  return {{"pt_iterations", static_cast<real>(last_step_.iterations)},
          {"residual_Pe", residual},
          {"fluid_volume", s.fluid},
          {"balance_error", s.fluid > 0 ? std::fabs(balance_) * dt_ / s.fluid : 0},
          {"phi_max", s.phi_max},
          {"peak_height", s.peak_height},
          {"excess_centroid", s.excess_centroid}};
}

}  // namespace staghorn::hydromech
