#pragma once
#include <array>
#include <functional>
#include <memory>
#include <optional>

#include "models/hydromech/boundary.hpp"
#include "models/hydromech/coupled_kernels.hpp"
#include "models/materials/options.hpp"
#include "models/pt_model.hpp"
#include "models/staggered_stokes/walls.hpp"

namespace staghorn::hydromech {

// The coupled variant of two-phase viscous compaction (`hydromech.variant = coupled`): solid
// Stokes flow (velocities on faces, total over-pressure p at centres, deviatoric stresses at
// centres and edges, viscous or Maxwell visco-elastic shear) coupled to Darcy flow of the fluid
// (fluid over-pressure pf at centres) through the compaction of the pores. Implicit steps, each
// solved by accelerated PT iterations on v, p, pf and tau; porosity follows Pe = p - pf in closed
// form as in the reduced variant. 1-D, 2-D and 3-D; gravity along the last active axis.
// Equations and numerics: docs/models/hydromech.md, "Coupled variant".
class CoupledHydroMech final : public PtModel {
 public:
  // Every key of the variant, read once (coupled_options.cpp, beside the schema).
  struct Options {
    Material mat;
    PeBcs fluid_sides;
    real shear_viscosity, shear_modulus, Re, r;
    std::optional<real> reference_porosity;  // none: phi0, or the mean on a periodic up axis
    std::array<stokes::Wall, 6> walls;
    bool tiled;  // kernel = tiled
    pt::Options solver;
    io::json initial;              // hydromech.initial, read by set_initial
    materials::Options materials;  // hydromech.materials: the background porosity
    static Options from(const io::json& config);
  };

  explicit CoupledHydroMech(const ModelContext& ctx);

  static void add_options(io::Schema& schema);

  void refresh() override;
  std::vector<Diagnostic> diagnostics() override;
  std::vector<io::SeriesColumn> diagnostic_columns() const override;
  // Read: v, p, pf, tau, dpf/dtau, phi_old, exc, mu, mu_max (and tau_old when elastic); written:
  // v, p, pf, tau, dpf/dtau and exc (the porosity pass); where the tiled kernel computes the
  // porosity itself (fused_porosity), exc is neither read nor written.
  double bytes_per_cell_iteration() const override;

  // pt::Problem
  void begin_solve(real dt) override;
  void iterate(int count) override;
  std::vector<pt::Residual> residuals() override;
  void retry(real factor) override;
  void to_step_start() override;

  const Field& phi() const { return phi_; }
  const Field& P() const { return P_; }
  const Field& Pf() const { return Pf_; }
  const Field& V(int axis) const { return V_[axis]; }
  int up_axis() const { return up_; }
  // The compaction length sqrt(k0 (eta0 + 4/3 eta_s)) of the 1-D waves (docs).
  real compaction_length() const;
  // Porosity of the lithostatic reference state (the mean porosity on a periodic up axis).
  real reference_porosity() const { return phi_ref_; }

  // Verification by manufactured solutions: f(equation, x) is added to the residual of
  // `equation` (0, 1, 2: momentum along x, y, z, at the centres of the faces normal to that axis;
  // 3: solid mass, 4: fluid mass, at cell centres; x in the grid's coordinates), evaluated here
  // once at each point of this rank. From then on the iterations and residual norms run the
  // kernels instantiated with sources; without this call they carry none (no loads, same bits).
  using SourceFunction = std::function<double(int equation, const double x[3])>;
  void set_sources(const SourceFunction& f);

  // The launch shape of the tiled kernel: an index into coupled::kTiledShapes (benchmarks).
  void set_tiled_shape(int index) { tiled_shape_ = index; }

 private:
  CoupledHydroMech(const ModelContext& ctx, const Options& opt);
  template <int Dim, bool Sourced>
  void iterate_dim(int count);
  template <int Dim, bool Sourced = false>
  coupled::Pseudo<Dim, Sourced> pseudo();
  // The fluid mass residual summed over all ranks (exact_sum of coupled::Residual): the step's
  // fluid volume balance per cell volume.
  real fluid_residual_sum();
  template <int Dim, bool Sourced>
  real reduce_fluid_residual_sum();
  // The max-norm of every equation over all ranks, in one pass: momentum along each axis, solid
  // mass, fluid mass.
  template <int Dim, bool Sourced>
  std::vector<real> max_residuals();
  coupled::Constants constants() const;
  stokes::State state_of(std::array<Field, 3>& V, Field& P, std::array<Field, 6>& T);
  coupled::Extra extra();
  std::vector<int> stress_components() const;
  void apply_walls(std::array<Field, 3>& V, Field& P, Field& Pf);
  void porosity_pass();
  // The tiled kernel computes the iterate's porosity itself (no open fluid side): the porosity
  // pass then runs only when a residual needs exc (update_porosity).
  bool fused_porosity() const;
  void update_porosity();
  // The tiled kernel runs here (3-D, a GPU, no sources, hydromech.coupled.kernel = tiled).
  bool tiled_here() const;
  template <int Dim, bool Sourced>
  void run_iteration(const coupled::Pseudo<Dim, Sourced>& ps, const stokes::State& next,
                     const Region& r, Lane lane);
  // The fluid volume balance of the converged step, then the step's porosity and its halos.
  void end_step() override;
  void set_initial(const io::json& ic);

  int up_;
  std::array<Field, 3> V_, V_new_, V_start_;
  Field P_, P_new_, P_start_, Pf_, Pf_new_, Pf_start_, dPfdtau_;
  std::array<Field, 6> T_, T_new_, T_old_;
  Field phi_, phi_old_, exc_, mu_, mu_max_;
  stokes::Walls walls_;  // free slip or no slip (hydromech.coupled.boundary), no normal flow
  Options opt_;
  bool tiled_;  // hydromech.coupled.kernel = tiled, and the block fits 32-bit offsets
  bool porosity_stale_ = false;  // exc lags the iterate (fused_porosity)
  int tiled_shape_ = 0;
  real phi_ref_;
  bool mean_reference_;  // periodic up axis: phi_ref is the mean porosity (one sum per step)
  real balance_ = 0;     // the latest step's fluid volume balance error (sum of R_f dV)
  // Manufactured-solution sources (set_sources), in the order of coupled::Sources; null: none.
  std::unique_ptr<std::array<Field, 5>> sources_;
};

}  // namespace staghorn::hydromech
