#pragma once
#include "core/boundary.hpp"
#include "models/diffusion/kernels.hpp"
#include "models/pt_model.hpp"

namespace staghorn::diffusion {

// Nonlinear diffusion by implicit time steps, each solved by accelerated PT iterations.
// Equations and numerics: docs/models/diffusion.md.
class Diffusion final : public PtModel {
 public:
  // Which iteration kernel runs: the generic one (the reference), the z-marching one (3-D GPU),
  // the one with two cells per thread (even n_x) or the CPU's rows (rows.hpp); automatic takes
  // the fastest for the backend.
  enum class Kernel { automatic, generic, marching, pairs, rows };
  // Every key of the model, read once (options.cpp, beside the schema).
  struct Options {
    Material material;
    SideBcs sides;
    Kernel kernel;
    pt::Options solver;
    io::json initial;  // diffusion.initial, read by set_initial
    static Options from(const io::json& config);
  };

  explicit Diffusion(const ModelContext& ctx);

  static void add_options(io::Schema& schema);
  static ModelInfo info();

  void refresh() override;
  std::vector<Diagnostic> diagnostics() override;
  double bytes_per_cell_iteration() const override { return 5 * sizeof(real); }

  const Field& H() const { return H_; }

  // pt::Problem
  void begin_solve(real dt) override;
  void iterate(int count) override;
  std::vector<pt::Residual> residuals() override;
  void retry(real factor) override;

  void set_march_chunk(int chunk) { march_chunk_ = chunk; }  // cells per thread (benchmarks)

 private:
  Diffusion(const ModelContext& ctx, const Options& opt);
  Coefficients coefficients() const;
  Kernel kernel_for(int dims) const;
  template <int Dim>
  void iterate_dim(int count);
  FaceGhosts face_ghosts(Kernel kernel) const;
  template <int Dim>
  void update(Kernel kernel, const Coefficients& co, const FaceGhosts& ghosts, Region r,
              Lane lane);
  template <int Dim>
  real local_residual() const;
  void set_initial(const io::json& ic);

  Field H_, H_new_, H_old_, dHdtau_;
  SideBcs bcs_;
  Material mat_;
  Kernel kernel_;
  int march_chunk_ = 32;
};

}  // namespace staghorn::diffusion
