#pragma once
#include "core/boundary.hpp"
#include "core/halo_exchange.hpp"
#include "models/diffusion/kernels.hpp"
#include "models/model.hpp"
#include "solvers/pt_solver.hpp"

namespace staghorn::diffusion {

// Nonlinear diffusion by implicit time steps, each solved by accelerated PT iterations.
// Equations and numerics: docs/models/diffusion.md.
class Diffusion final : public Model, public pt::Problem {
 public:
  explicit Diffusion(const ModelContext& ctx);

  static void add_options(io::Schema& schema);
  static ModelInfo info();

  StepReport advance(real dt) override;
  std::vector<const Field*> output_fields() const override { return {&H_}; }
  std::vector<Field*> state_fields() override { return {&H_}; }
  void refresh() override;
  std::vector<Diagnostic> diagnostics() override;
  double bytes_per_cell_iteration() const override { return 5 * sizeof(real); }

  const Field& H() const { return H_; }

  // pt::Problem
  void begin_solve(real dt) override;
  void iterate(int count) override;
  std::vector<pt::Residual> residuals() override;

 private:

  template <int Dim>
  Physics<Dim> physics() const;
  template <int Dim>
  void iterate_dim(int count);
  void set_initial(const io::json& ic);

  const Decomposition& dec_;
  Exec ex_;
  Layout layout_;
  Field H_, H_new_, H_old_, dHdtau_;
  HaloExchange halo_;
  SideBcs bcs_;
  Material mat_;
  pt::Solver solver_;
  real dt_ = 0;
};

}  // namespace staghorn::diffusion
