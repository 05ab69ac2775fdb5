#pragma once
#include <array>
#include <functional>
#include <memory>
#include <optional>

#include "models/hydromech/boundary.hpp"
#include "models/hydromech/coupled_kernels.hpp"
#include "models/hydromech/porosity_stats.hpp"
#include "models/hydromech/two_phase.hpp"
#include "models/materials/options.hpp"
#include "models/pt_model.hpp"
#include "models/staggered_stokes/damping.hpp"
#include "models/staggered_stokes/walls.hpp"

namespace staghorn::hydromech {

// The coupled variant of two-phase viscous compaction (`hydromech.variant = coupled`): solid
// Stokes flow (velocities on faces, total over-pressure p at centres, deviatoric stresses at
// centres and edges, viscous or Maxwell visco-elastic shear with a porosity- and strain-rate-
// dependent viscosity) coupled to Darcy flow of the fluid (fluid over-pressure pf at centres)
// through the compaction of the pores. Implicit steps, each solved by accelerated PT iterations
// on v, p, pf and tau; the porosity is carried by the solid over the step (two_phase.hpp), then
// follows Pe = p - pf in closed form. The small-porosity limit (hydromech.coupled.physics)
// drops the factors 1 - phi and the advection. 1-D, 2-D and 3-D; gravity along the last active
// axis. Equations and numerics: docs/models/hydromech-coupled.md.
class CoupledHydroMech final : public PtModel {
 public:
  // Every key of the variant, read once (coupled_options.cpp, beside the schema).
  struct Options {
    Material mat;
    PeBcs fluid_sides;
    bool two_phase;             // physics = two_phase (else the small-porosity limit)
    two_phase::ShearLaw shear;  // mu(phi, eps_II), caps, relaxation, G
    int shear_interval;         // PT iterations between viscosity updates (a varying law)
    std::optional<real> Re, r;  // none: chosen by the model
    std::optional<real> reference_porosity;  // none: phi0, or the mean on a periodic up axis
    ChimneyOptions chimney;                  // hydromech.chimney: the front's diagnostics
    std::array<stokes::Wall, 6> walls;
    bool tiled;             // kernel = tiled
    bool predictor;         // predictor = linear: each step starts from p, pf, v extrapolated
    bool level_correction;  // p and pf shifted together to balance the domain's volume
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
  // PtModel's, and whether the iterate is a converged step ("converged_start": not the initial
  // condition, whose first step's change is no rate to extrapolate).
  CarriedState carried_state() const override;

  const Field& phi() const { return phi_; }
  const Field& P() const { return P_; }
  const Field& Pf() const { return Pf_; }
  const Field& V(int axis) const { return V_[axis]; }
  int up_axis() const { return up_; }
  // The solid plus the fluid mass residual of the iterate summed over the domain (all ranks):
  // the volume it loses per unit time and per cell volume, what the level correction zeroes.
  real volume_balance();
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
  // The residual of `equation` (3: solid mass, 4: fluid mass) summed over all ranks (exact_sum of
  // coupled::Residual): the step's solid or fluid volume balance per cell volume.
  real residual_sum(int equation);
  template <int Dim, bool Sourced>
  real reduce_residual_sum(int equation);
  // The fluid volume leaving (sign 1) or entering (-1) through the bounded sides per unit time
  // (coupled::SideOutflow).
  real fluid_crossing(real sign);
  // The solid's PT parameters: the keys', else the model's choice (Re tuned during the solve).
  real Re() const;
  real r() const;
  // What drives the Darcy flux up: (1 - phi_ref) B (B in the small-porosity limit).
  real fluid_drive() const;
  // The max-norm of every equation over all ranks, in one pass: momentum along each axis, solid
  // mass, fluid mass.
  template <int Dim, bool Sourced>
  std::vector<real> max_residuals();
  coupled::Constants constants() const;
  stokes::State state_of(std::array<Field, 3>& V, Field& P, std::array<Field, 6>& T);
  coupled::Extra extra();
  std::vector<int> stress_components() const;
  // The ghost rules of p (zero gradient) and pf (the fluid conditions of hydromech.boundary).
  std::array<SideRules, 2> pressure_rules() const;
  // The walls' ghosts of V, p and pf, every side, in one fill.
  void apply_walls(std::array<Field, 3>& V, Field& P, Field& Pf);
  void porosity_pass();
  // The tiled kernel computes the iterate's porosity itself (no open fluid side): the porosity
  // pass then runs only when a residual needs exc (update_porosity).
  bool fused_porosity() const;
  void update_porosity();
  // The tiled kernel runs here (3-D, a GPU, no sources, hydromech.coupled.kernel = tiled).
  bool tiled_here() const;
  void align_shell_with_chunks(Int3 width);
  template <int Dim, bool Sourced>
  void run_iteration(const coupled::Pseudo<Dim, Sourced>& ps, const stokes::State& next,
                     const Region& r, Lane lane);
  // The fluid volume balance of the converged step, then the step's porosity and its halos.
  void end_step() override;
  void set_initial(const io::json& ic);
  bool take_carried(const std::string& name, double value) override;

  // Two-phase system and shear viscosity (coupled_two_phase.cpp).
  // phi_old_ = phi_ carried over dt by the step's starting solid velocity (sub-steps keep the
  // advective Courant number below 1/2).
  void advect_porosity();
  template <int Dim>
  void advect_porosity_dim();
  // Whether mu varies within a step (power law, porosity weakening, a bulk viscosity that follows
  // it): then it is updated inside the iterations and has a residual.
  bool varying_viscosity() const;
  // mu_s from the iterate (relaxed, or set outright at a step's start; or kept, to derive mu
  // and the compaction scale from it again), then mu, the scale and mu_max.
  enum class ViscosityMode { relax, set, keep };
  void update_viscosity(ViscosityMode mode);
  // The compaction scale and the iterate's porosity from A, then update_viscosity(mode).
  void derive_from_viscosity(ViscosityMode mode);
  template <int Dim>
  void update_viscosity_dim(ViscosityMode mode);
  void refresh_mu_max();  // from mu, its halo and ghosts already set
  pt::Residual viscosity_residual();
  // The porosity the step ends with must stay a fraction: NumericalError otherwise.
  void check_porosity_range() const;
  // The chimney's front height of phi_ (the diagnostics' front and its speed).
  ChimneyStats chimney() const;

  // What speeds the solve beyond the damped iterations (coupled_acceleration.cpp).
  // The step's first iterate: p, pf and v moved on by dt times their rates over the last step.
  void predict();
  // The rates over the step just solved, from the iterate and the step's start.
  void keep_rates();
  // The level: p and pf shifted by one constant, which moves no pressure difference and no
  // gradient, only the fluid's flux through the dirichlet sides. The shift that balances the
  // domain's volume (solid plus fluid mass residuals summed) takes out what was the slowest mode
  // of the 2-D pipe's iterations (not of the 3-D runs: hydromech.coupled.level_correction is off
  // by default); level_conductance_ is that sum's change per unit shift, measured at the step's
  // start (0: no dirichlet side, no correction).
  static constexpr int kLevelInterval = 100;  // iterations between level corrections
  void begin_level();
  void correct_level();
  void shift_level(real c);

  int up_;
  std::array<Field, 3> V_, V_new_, V_start_;
  Field P_, P_new_, P_start_, Pf_, Pf_new_, Pf_start_, dPfdtau_;
  std::array<Field, 6> T_, T_new_, T_old_;
  Field phi_, phi_old_, exc_, mu_, mu_max_;
  Field mu_s_, mu_s_start_;  // the creep viscosity (state: the next step starts from it)
  Field scale_;              // the compaction scale 1 / ((1 - A) S) (physics.hpp's `scale`)
  Field slope_;              // scratch: the porosity's slopes along one axis (advection)
  stokes::Walls walls_;      // free slip or no slip (hydromech.coupled.boundary), no normal flow
  Options opt_;
  bool tiled_;  // hydromech.coupled.kernel = tiled, and the block fits 32-bit offsets
  bool porosity_stale_ = false;  // exc lags the iterate (fused_porosity)
  int tiled_shape_ = 0;
  long long solve_iterations_ = 0;  // of this solve (attempt): viscosity updates, damping
  // hydromech.coupled.Re = null: the damping tuned from each step's residual history, from
  // kStartRe each step (a restart repeats it bit for bit).
  std::optional<stokes::DampingControl> damping_;
  real relaxation_ = 1;   // the viscosity's log-space relaxation this step (retries lower it)
  real front_start_ = 0;  // the chimney's front at the step's start
  real phi_ref_;
  bool mean_reference_;     // periodic up axis: phi_ref is the mean porosity (one sum per step)
  real balance_ = 0;        // the latest step's fluid volume balance error (sum of R_f dV)
  real solid_balance_ = 0;  // ... and solid (sum of R_s dV)
  real outflow_ = 0, inflow_ = 0;  // fluid volume leaving, entering per unit time (latest step)
  // Manufactured-solution sources (set_sources), in the order of coupled::Sources; null: none.
  std::unique_ptr<std::array<Field, 5>> sources_;
  // The rates of v, p and pf over the last step (hydromech.coupled.predictor = linear; state).
  struct Rates {
    std::array<Field, 3> V;
    Field P, Pf;
  };
  std::unique_ptr<Rates> rates_;
  real level_conductance_ = 0;
  // The iterate is a converged step (carried state); until end_step sets it, whether the step
  // being solved started from one (and so whether its change is a rate).
  bool converged_start_ = false;
};

}  // namespace staghorn::hydromech
