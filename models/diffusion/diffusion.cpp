#include "models/diffusion/diffusion.hpp"

#include <cmath>

#include "core/dispatch.hpp"
#include "core/exact_sum.hpp"
#include "core/field_ops.hpp"
#include "core/for_each.hpp"
#include "models/diffusion/rows.hpp"

namespace staghorn::diffusion {
namespace {

// Calls f with the exponent compiled in where it is one of the commonest (0, 3), else with -1
// (read at run time): fewer instructions on the GPU, row loops without pow on the CPU, same bits.
template <class F>
decltype(auto) with_exponent(int n_int, F&& f) {
  return dispatch_or<-1, 0, 3>(n_int, std::forward<F>(f));
}

}  // namespace

Diffusion::Diffusion(const ModelContext& ctx) : Diffusion(ctx, Options::from(ctx.config)) {}

Diffusion::Diffusion(const ModelContext& ctx, const Options& opt)
    : PtModel(ctx, opt.solver, /*corners=*/false),  // a 7-point stencil
      H_("H", Location::cell, layout_, ex_.backend(), "1", "diffused quantity H"),
      H_new_("H_new", Location::cell, layout_, ex_.backend()),
      H_old_("H_old", Location::cell, layout_, ex_.backend()),
      dHdtau_("dHdtau", Location::cell, layout_, ex_.backend()),
      bcs_(opt.sides),
      mat_(opt.material),
      kernel_(opt.kernel) {
  // H_old_ is the implicit step's old value, part of the equation, and a retry's start too.
  fields_.add(H_, FieldTable::output | FieldTable::state | FieldTable::unknown, &H_new_, &H_old_)
      .add(dHdtau_, FieldTable::pseudo_rate);
  set_initial(opt.initial);
}

void Diffusion::refresh() {
  halo_.exchange({&H_});
  apply_boundaries(ex_, dec_, H_, bcs_);
}

void Diffusion::begin_solve(real dt) {
  dt_ = dt;
  save_start();  // H_old_, no pseudo-velocity
}

Coefficients Diffusion::coefficients() const {
  const Grid& g = dec_.grid();
  const double spacing[3] = {g.spacing(0), g.spacing(1), g.spacing(2)};
  return coefficients_for(mat_, dt_, spacing, g.dims(), g.slowest_mode(), static_cast<float>(cfl_));
}

Diffusion::Kernel Diffusion::kernel_for(int dims) const {
  // The pairs kernel needs every region to start and end at an even x.
  bool even = layout_.n.x % 2 == 0;
  for (const Region& r : split_.shell) even = even && r.lo.x % 2 == 0 && r.hi.x % 2 == 0;
  if (kernel_ == Kernel::marching && dims < 3) return Kernel::generic;
  if (kernel_ == Kernel::pairs && !even) return Kernel::generic;
  if (kernel_ != Kernel::automatic && !(kernel_ == Kernel::rows && ex_.on_device())) return kernel_;
  if (!ex_.on_device()) return Kernel::rows;
  return even ? Kernel::pairs : Kernel::generic;
}

void Diffusion::retry(real factor) {
  abandon_step();
  cfl_ *= factor;
}

template <int Dim>
void Diffusion::update(Kernel kernel, const Coefficients& co, const FaceGhosts& ghosts, Region r,
                       Lane lane) {
  const View H = H_.view(), Ho = H_old_.view(), Hn = H_new_.view(), V = dHdtau_.view();
  if (kernel == Kernel::pairs) r.lo.x /= 2, r.hi.x /= 2;  // two cells along x per thread
  with_exponent(mat_.n_int, [&](auto n) {
    constexpr int N = decltype(n)::value;
    if (kernel == Kernel::marching)
      return for_each_marching(ex_, r, lane, march_chunk_, MarchingIteration<N>{co, H, Ho, Hn, V});
    if (kernel == Kernel::rows) return iterate_rows<Dim, N>(co, H, Ho, Hn, V, r);
    if (kernel == Kernel::pairs)
      return for_each(ex_, r, lane, PairIteration<Dim, N>{co, H, Ho, Hn, V, ghosts});
    for_each(ex_, r, lane, Iteration<Dim, N>{co, H, Ho, Hn, V});
  });
}

// The face ghosts of H_new that the kernel sets itself: the pairs kernel's (the GPU's hot path; an
// iteration is then one launch). The others leave them to apply_boundaries: in the one-cell-per-
// thread generic kernel the side tests in every thread cost more than the launch they save
// (docs/kernels.md).
FaceGhosts Diffusion::face_ghosts(Kernel kernel) const {
  if (kernel != Kernel::pairs) return {};
  return FaceGhosts::of(dec_, layout_, rules_of(bcs_));
}

template <int Dim>
void Diffusion::iterate_dim(int count) {
  const Coefficients co = coefficients();
  const Kernel kernel = kernel_for(Dim);
  const FaceGhosts ghosts = face_ghosts(kernel);
  const std::vector<Field*> next = fields_.next_unknowns();
  run_iterations(count, 2, [&](int) {
    update_and_exchange(ex_, halo_, split_, next, hide_, [&](const Region& r, Lane lane) {
      update<Dim>(kernel, co, ghosts, r, lane);
    });
    if (!ghosts.any()) apply_boundaries(ex_, dec_, H_new_, bcs_);
    fields_.swap_next();
  });
}

void Diffusion::iterate(int count) {
  dispatch<1, 2, 3>("grid dimensions", dec_.grid().dims(),
                    [&](auto dim) { iterate_dim<decltype(dim)::value>(count); });
}

template <int Dim>
real Diffusion::local_residual() const {
  const Region in = layout_.interior();
  if (kernel_for(Dim) == Kernel::rows) {  // the CPU: vectorised rows, the exponent compiled in
    const Coefficients co = coefficients();
    const View H = H_.view(), Ho = H_old_.view();
    return with_exponent(mat_.n_int, [&](auto n) {
      return max_abs_residual_rows<Dim, decltype(n)::value>(co, H, Ho, in);
    });
  }
  return reduce(ex_, in, MaxOp{}, AbsResidual<Dim>{coefficients(), H_.view(), H_old_.view()});
}

std::vector<pt::Residual> Diffusion::residuals() {
  const int dims = dec_.grid().dims();
  const real local = dims == 1   ? local_residual<1>()
                     : dims == 2 ? local_residual<2>()
                                 : local_residual<3>();
  return {{"H", dec_.comm().max(local)}};
}

namespace {
struct CellValue {
  View H;
  real weight;
  SH_HD real operator()(int i, int j, int k) const { return H(i, j, k) * weight; }
};
}  // namespace

std::vector<Diagnostic> Diffusion::diagnostics() {
  const Grid& g = dec_.grid();
  real volume = 1;
  for (int a = 0; a < g.dims(); ++a) volume *= g.spacing(a);
  const Region in = layout_.interior();
  const Comm& comm = dec_.comm();
  return {{"mass", exact_sum(ex_, comm, in, CellValue{H_.view(), volume})},
          {"H_max", comm.max(reduce(ex_, in, MaxOp{}, CellValue{H_.view(), 1}))},
          {"H_min", -comm.max(reduce(ex_, in, MaxOp{}, CellValue{H_.view(), -1}))}};
}

}  // namespace staghorn::diffusion
