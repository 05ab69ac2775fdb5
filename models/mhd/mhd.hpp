#pragma once
#include <random>
#include <vector>

#include "core/halo_exchange.hpp"
#include "core/overlap.hpp"
#include "models/mhd/kernels.hpp"
#include "models/field_table.hpp"
#include "models/model.hpp"
#include "solvers/rk3.hpp"

namespace staghorn::mhd {

// Compressible non-ideal MHD (Pencil Code / Astaroth equations) on collocated cell-centred fields,
// central differences of order 2-8, explicit 2N RK3. Equations and numerics: docs/models/mhd.md.
class Mhd final : public Model, public rk3::Problem {
 public:
  // Every key of the model, read once (options.cpp, beside the schema).
  struct Options {
    int order;
    bool isothermal, kinematic;
    bool tiled;  // mhd.kernel = tiled (tiled on CUDA, pencils on the CPU)
    Physics physics;
    struct Forcing {
      real amplitude, k, helicity;
      long long seed;
    } forcing;
    rk3::Options rk3;
    io::json initial;  // mhd.initial, read by set_initial
    static Options from(const io::json& config);
  };

  explicit Mhd(const ModelContext& ctx);

  static void add_options(io::Schema& schema);
  static ModelInfo info();

  StepReport advance(real dt) override;
  void finish() override { ex_.synchronize(); }
  std::vector<const Field*> output_fields() const override;
  std::vector<Field*> state_fields() override;
  void refresh() override;
  std::vector<Diagnostic> diagnostics() override;
  void check_time_step(real dt) override { rk3::check_fixed_step(*this, rk_, dt); }
  std::vector<io::SeriesColumn> diagnostic_columns() const override;
  double bytes_per_cell_iteration() const override;

  // rk3::Problem
  void stage(int index, real alpha, real beta, real dt) override;
  rk3::Limits limits() override;

  int vars() const { return entropy_ ? kMaxVars : kMaxVars - 1; }
  Field& var(int v) { return f_[v]; }
  Field& rk_register(int v) { return w_[v]; }
  const Physics& physics() const { return ph_; }
  int order() const { return order_; }
  // The stage kernel that runs: "tiled" (CUDA), "pencil" (CPU) or "generic".
  const char* kernel() const;
  // How a stage fills the halo: "images" (the tiled or pencil kernel writes every periodic image
  // itself: one rank), "hidden" (boundary shell first, exchanged behind the inner region) or
  // "exchange" (after the whole interior); "images+hidden" and "images+exchange" where the kernel
  // writes the images along the axes held by one rank and the other axes are exchanged.
  const char* halo_mode() const;
  // The axes whose halo the stage kernel writes as periodic images (their extents; else 0).
  Int3 image_axes() const { return images_; }

 private:
  Mhd(const ModelContext& ctx, const Options& opt);
  template <int Order>
  void stage_with(int index, real alpha, real beta, real dt);
  template <int Order, bool Entropy>
  void run_stage(const StageArgs& args, const Region& r, Lane lane, Int3 images);
  template <int Order>
  real reduce_cells(CellQuantity q, bool max) const;
  real reduce_cells(CellQuantity q, bool max) const;
  Axes axes() const;
  Vars pointers(const std::vector<Field>& fields) const;
  void draw_forcing(real dt);
  void set_initial(const io::json& ic);

  const Decomposition& dec_;
  Exec ex_;
  Layout layout_;
  int order_;
  bool entropy_;
  bool kinematic_;
  bool tiled_;    // mhd.kernel = tiled, 3-D: the tiled kernel on CUDA (orders 2-6)
  bool pencils_;  // mhd.kernel = tiled on the CPU: the pencil kernel (pencil.hpp)
  Physics ph_;
  std::vector<Field> f_, next_, w_;  // state, the next stage's state, RK3 registers
  FieldTable fields_;  // f_ (written, restarted, exchanged each stage into next_)
  Int3 images_;  // axes along which the stage kernel writes the halo itself (extents; else 0)
  HaloExchange halo_;        // every segment: refresh()
  HaloExchange stage_halo_;  // the segments the stage kernel's images leave: each stage
  ShellSplit split_;
  bool hide_;
  rk3::Options rk_;
  // Forcing: amplitude f0, shell |k| in kf +- 1/2 (in units of 2 pi / L), helicity sigma.
  real force_f0_, force_kf_, force_sigma_;
  std::mt19937_64 force_rng_;
  Forcing force_;
};

}  // namespace staghorn::mhd
