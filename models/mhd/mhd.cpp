#include "models/mhd/mhd.hpp"

#include <cmath>

#include "core/dispatch.hpp"
#include "core/exact_sum.hpp"
#include "core/for_each.hpp"
#include "core/overlap.hpp"
#include "models/mhd/pencil.hpp"
#if defined(__CUDACC__)
#include "models/mhd/tiled.hpp"
#endif

namespace staghorn::mhd {
namespace {

const char* kNames[kMaxVars] = {"lnrho", "ux", "uy", "uz", "ax", "ay", "az", "ss"};
const char* kLongNames[kMaxVars] = {
    "log density",        "velocity x",         "velocity y",         "velocity z",
    "vector potential x", "vector potential y", "vector potential z", "specific entropy"};

int halo_of(int order) { return order / 2; }

Layout layout_of(const Decomposition& dec, int order) {
  Int3 h;
  for (int a = 0; a < 3; ++a) h[a] = dec.grid().active(a) ? halo_of(order) : 0;
  return {dec.local_cells(), h};
}

std::vector<Field> make_fields(const Layout& l, Backend b, int vars, const char* suffix) {
  std::vector<Field> out;
  out.reserve(vars);
  for (int v = 0; v < vars; ++v)
    out.emplace_back(std::string(kNames[v]) + suffix, Location::cell, l, b, "1", kLongNames[v]);
  return out;
}

void check_grid(const Decomposition& dec, int order) {
  const Grid& g = dec.grid();
  for (int a = 0; a < 3; ++a) {
    if (g.active(a) && !g.periodic[a])
      throw io::ConfigError("grid.periodic[" + std::to_string(a) +
                            "]: the mhd model supports periodic axes only");
    if (g.active(a) && dec.local_cells()[a] < halo_of(order))
      throw io::ConfigError("grid.n[" + std::to_string(a) + "]: local blocks of " +
                            std::to_string(dec.local_cells()[a]) +
                            " cells are thinner than the halo of mhd.order " +
                            std::to_string(order));
  }
}

// Whether the stage kernels run on the tiled CUDA kernel (orders 2-6; order 8: generic).
bool tiled_order(int order) {
#if defined(__CUDACC__)
  return tiled::supports(order);
#else
  (void)order;
  return false;
#endif
}

// The axes along which the tiled (CUDA) or pencil (CPU) kernel writes the halo itself (their
// extents; else 0): those periodic onto the block itself (held by one rank), where a halo cell is
// just the periodic image of a boundary cell. Only the axes split over ranks are then exchanged,
// with a boundary shell along them alone. A self-exchange's pack and unpack can only run on SMs
// the tiled kernel's blocks leave (one block takes an SM's registers); on the CPU its passes over
// the halo (a third of the cells at 64^3) cost a large share of a step. Writing the images from
// the kernel costs a few stores per boundary cell and gives the same bits (docs/kernels.md).
Int3 self_images(const Decomposition& dec, const Layout& l, bool writes_images) {
  Int3 w{0, 0, 0};
  if (!writes_images) return w;
  for (int a = 0; a < 3; ++a)
    // Thinner than two halos, a cell would have two images along the axis: exchanged instead.
    if (l.h[a] > 0 && dec.wraps_onto_itself(a) && l.n[a] >= 2 * l.h[a]) w[a] = l.n[a];
  return w;
}

}  // namespace

Mhd::Mhd(const ModelContext& ctx) : Mhd(ctx, Options::from(ctx.config)) {}

Mhd::Mhd(const ModelContext& ctx, const Options& opt)
    : dec_(ctx.dec),
      ex_(ctx.exec),
      layout_(layout_of(ctx.dec, opt.order)),
      order_(opt.order),
      entropy_(!opt.isothermal),
      kinematic_(opt.kinematic),
      // The tiled kernel is CUDA-only and 3-D; the CPU runs pencils instead (any dimension).
      tiled_(opt.tiled && ctx.dec.grid().dims() == 3),
      pencils_(opt.tiled && !ctx.exec.on_device()),
      ph_(opt.physics),
      f_(make_fields(layout_, ex_.backend(), vars(), "")),
      next_(make_fields(layout_, ex_.backend(), vars(), "_next")),
      w_(make_fields(layout_, ex_.backend(), vars(), "_w")),
      images_(self_images(ctx.dec, layout_,
                          pencils_ || (tiled_ && ex_.on_device() && tiled_order(order_)))),
      halo_(ctx.dec, layout_, ctx.exec, /*corners=*/true),  // mixed derivatives read the edges
      stage_halo_(ctx.dec, layout_, ctx.exec, /*corners=*/true, images_),
      split_(split_for(stage_halo_, layout_.interior(), ctx.boundary_width())),
      // Periodic boxes copy 8 fields' 3-cell halos to themselves even on one rank: worth hiding
      // behind the generic kernel too (a 256^3 step on one H100: 26.0 ms hidden, 31.3 not).
      hide_(ctx.hide_communication() && stage_halo_.segments() > 0),
      rk_(opt.rk3),
      force_f0_(opt.forcing.amplitude),
      force_kf_(opt.forcing.k),
      force_sigma_(opt.forcing.helicity),
      force_rng_(opt.forcing.seed) {
  check_grid(dec_, order_);
  // Each stage writes next_ (exchanged) and then swaps it in: an unknown with its next iterate.
  for (int v = 0; v < vars(); ++v)
    fields_.add(f_[v], FieldTable::output | FieldTable::state | FieldTable::unknown, &next_[v]);
  set_initial(opt.initial);
}

const char* Mhd::kernel() const {
  if (pencils_) return "pencil";
  return tiled_ && ex_.on_device() && tiled_order(order_) ? "tiled" : "generic";
}

const char* Mhd::halo_mode() const {
  const bool images = images_ != Int3{0, 0, 0};
  if (stage_halo_.segments() == 0) return images ? "images" : "exchange";
  if (images) return hide_ ? "images+hidden" : "images+exchange";
  return hide_ ? "hidden" : "exchange";
}

std::vector<const Field*> Mhd::output_fields() const {
  return fields_.const_with(FieldTable::output);
}

std::vector<Field*> Mhd::state_fields() { return fields_.with(FieldTable::state); }

void Mhd::refresh() { halo_.exchange(fields_.with(FieldTable::state)); }

double Mhd::bytes_per_cell_iteration() const {
  // Per stage, averaged over the three: f read, f_next written, w written (not in the last) and
  // read (not in the first, alpha = 0).
  return (2.0 + 2.0 * (rk3::kStages - 1) / rk3::kStages) * vars() * sizeof(real);
}

Axes Mhd::axes() const {
  const Grid& g = dec_.grid();
  const View v = f_[0].view();
  const std::ptrdiff_t s[3] = {1, v.sy, v.sz};
  Axes ax;
  for (int a = 0; a < 3; ++a) {
    ax.s[a] = g.active(a) ? s[a] : 0;
    ax.r1[a] = g.active(a) ? 1 / g.spacing(a) : 0;
  }
  return ax;
}

Vars Mhd::pointers(const std::vector<Field>& fields) const {
  Vars v{};
  for (std::size_t i = 0; i < fields.size(); ++i) v.p[i] = fields[i].view().p;
  return v;
}

StepReport Mhd::advance(real dt) {
  const int steps = rk3::advance(*this, rk_, dt);
  return {static_cast<long long>(steps) * rk3::kStages, {}};
}

template <int Order>
void Mhd::stage_with(int index, real alpha, real beta, real dt) {
  const Vars in = pointers(f_), out = pointers(next_), w = pointers(w_);
  const View shape = f_[0].view();
  const Axes ax = axes();
  StageArgs args{in, out, w, shape, ax, ph_, force_, alpha, beta, dt, kinematic_};
  args.read_w = alpha != 0;                 // the first stage
  args.write_w = index < rk3::kStages - 1;  // the next step starts from alpha = 0
  auto update = [&](const Region& r, Lane lane, Int3 images) {
    if (entropy_)
      run_stage<Order, true>(args, r, lane, images);
    else
      run_stage<Order, false>(args, r, lane, images);
  };
  if (stage_halo_.segments() == 0) {  // the kernel's images fill every halo: nothing to exchange
    timed_compute(ex_, Lane::inner, [&] { update(split_.interior, Lane::inner, images_); });
    ex_.order(Lane::inner, Lane::boundary);  // complete for what follows on either lane
    return;
  }
  update_and_exchange(ex_, stage_halo_, split_, fields_.next_unknowns(), hide_,
                      [&](const Region& r, Lane lane) { update(r, lane, images_); });
}

template <int Order, bool Entropy>
void Mhd::run_stage(const StageArgs& args, const Region& r, Lane lane, Int3 images) {
#if defined(__CUDACC__)
  if constexpr (tiled::supports(Order))  // order 8 needs a deeper ring: generic
    if (tiled_ && ex_.on_device() && !r.empty())
      return launch_tiled<Order, Entropy>(ex_.stream(lane), r, args, tiled::kAutoChunk, images);
#endif
  if (pencils_) return run_pencils<Order, Entropy>(args, r, images);
  (void)images;  // only the tiled and pencil kernels are chosen where images are written
  for_each(ex_, r, lane, Substep<Order, Entropy>{args});
}

void Mhd::stage(int index, real alpha, real beta, real dt) {
  if (index == 0) draw_forcing(dt);
  dispatch<2, 4, 6, 8>("mhd.order", order_, [&](auto order) {
    stage_with<decltype(order)::value>(index, alpha, beta, dt);
  });
  fields_.swap_next();
}

template <int Order>
real Mhd::reduce_cells(CellQuantity q, bool max) const {
  const CellValue<Order> f{pointers(f_), f_[0].view(), axes(), ph_, entropy_, q};
  const Region in = layout_.interior();
  const Comm& comm = dec_.comm();
  if (max) return comm.max(reduce(ex_, in, MaxOp{}, f));
  return exact_sum(ex_, comm, in, f);  // the same bits on any rank count
}

real Mhd::reduce_cells(CellQuantity q, bool max) const {
  return dispatch<2, 4, 6, 8>("mhd.order", order_, [&](auto order) {
    return reduce_cells<decltype(order)::value>(q, max);
  });
}

rk3::Limits Mhd::limits() {
  const Grid& g = dec_.grid();
  real sum_r2 = 0;
  for (int a = 0; a < 3; ++a)
    if (g.active(a)) sum_r2 += 1 / (g.spacing(a) * g.spacing(a));
  real diffusivity = std::fmax(ph_.nu + ph_.zeta, ph_.eta);
  if (entropy_ && ph_.K > 0) {
    const ThermalDiffusivity chi{f_[kLnrho].view().p, f_[0].view(), ph_.gamma * ph_.K / ph_.cp};
    diffusivity =
        std::fmax(diffusivity, dec_.comm().max(reduce(ex_, layout_.interior(), MaxOp{}, chi)));
  }
  return {reduce_cells(CellQuantity::advective_rate, true), diffusivity * sum_r2};
}

std::vector<Diagnostic> Mhd::diagnostics() {
  const Grid& g = dec_.grid();
  real volume = 1, cells = 1;
  for (int a = 0; a < 3; ++a) volume *= g.length[a], cells *= g.n[a];
  const real dV = volume / cells;
  return {{"urms", std::sqrt(reduce_cells(CellQuantity::u2, false) / cells)},
          {"brms", std::sqrt(reduce_cells(CellQuantity::B2, false) / cells)},
          {"umax", std::sqrt(reduce_cells(CellQuantity::u2, true))},
          {"mass", reduce_cells(CellQuantity::rho, false) * dV},
          {"kinetic_energy", reduce_cells(CellQuantity::kinetic, false) * dV},
          {"magnetic_energy", reduce_cells(CellQuantity::B2, false) * dV / (2 * ph_.mu0)},
          {"max_div_u", reduce_cells(CellQuantity::div_u_abs, true)},
          {"dt_limit", rk3::stable_dt(rk_, limits())}};
}

std::vector<io::SeriesColumn> Mhd::diagnostic_columns() const {
  return {{"urms", "1", "root mean square velocity"},
          {"brms", "1", "root mean square magnetic field (curl A + B_ext)"},
          {"umax", "1", "largest |u|"},
          {"mass", "1", "total mass (integral of rho)"},
          {"kinetic_energy", "1", "kinetic energy (integral of rho |u|^2 / 2)"},
          {"magnetic_energy", "1", "magnetic energy (integral of |B|^2 / (2 mu0))"},
          {"max_div_u", "1", "largest |div u|"},
          {"dt_limit", "1",
           "largest stable RK3 step of the state (advective with the fast magnetosonic speed, "
           "and diffusive limits, scaled by rk3.cdt and rk3.cdtv)"}};
}

}  // namespace staghorn::mhd
