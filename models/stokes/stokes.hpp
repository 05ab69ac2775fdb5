#pragma once
#include <array>
#include <memory>
#include <optional>

#include "core/marches.hpp"
#include "models/materials/options.hpp"
#include "models/pt_model.hpp"
#include "models/staggered_stokes/kernels.hpp"
#include "models/staggered_stokes/params.hpp"
#include "models/staggered_stokes/walls.hpp"
#include "models/staggered_stokes/damping.hpp"
#include "models/stokes/power_law.hpp"

namespace staghorn::stokes {

// The stiff bodies (models/stokes/stiff_bodies/): known here by name only.
struct StiffBodies;
class RigidBodies;

// Incompressible Stokes flow with variable viscosity and buoyancy, solved by accelerated
// pseudo-transient iterations. Equations and numerics: docs/models/stokes.md.
class Stokes final : public PtModel {
 public:
  // Every key of the model, read once (options.cpp, beside the schema).
  struct Options {
    real viscosity, density;
    struct Inclusion {
      real radius, viscosity, density;
      std::optional<std::array<real, 3>> center;  // none: the domain's centre
      std::optional<real> rigid_acceleration;     // deprecated: 0 turns rigid_bodies off
      int subsamples;
    } inclusion;
    materials::Options materials;  // stokes.materials: phases painted after the inclusion
    struct RigidBodies {
      bool on;         // mode = auto (and inclusion.rigid_acceleration not 0)
      real threshold;  // body cells: pseudo-step viscosity above threshold x the matrix's
      real mobility;   // the correction's step over the pseudo-step at the body's boundary
    } rigid_bodies;
    real pure_shear;
    std::array<Wall, 6> walls;
    int smoothing;
    bool geometric_smoothing;            // smoothing_mean = geometric: passes over log(mu)
    bool tiled;                          // kernel = tiled
    bool median_floor;                   // pt_viscosity_floor = median, or auto with rms_range
    real floor_factor = 0.5;             // pt_viscosity_floor_factor: the floor / the median
    bool adaptive_damping;               // stokes.Re = null: Re from the residual history
    bool automatic_r = false;            // stokes.r = null: 0.75, or 1 with stiff inclusions
    bool rms_norm;                       // residual_norm = rms_range
    std::optional<real> continuity_tol;  // none: solver.tol
    PtChoice pt;                         // Re, r, solver.cfl, gravity, viscosity_average = harmonic
    PowerLawOptions power_law;
    pt::Options solver;
    static Options from(const io::json& config);
  };

  explicit Stokes(const ModelContext& ctx);
  ~Stokes() override;

  static void add_options(io::Schema& schema);
  static ModelInfo info();

  void refresh() override;
  std::vector<Diagnostic> diagnostics() override;
  std::vector<io::SeriesColumn> diagnostic_columns() const override;
  // Read: V, P, tau (Dim + 1 + Dim (Dim + 1) / 2 arrays), mu, mu_max, rho; written: V, P, tau.
  double bytes_per_cell_iteration() const override;

  // pt::Problem
  void begin_solve(real dt) override;
  void iterate(int count) override;
  std::vector<pt::Residual> residuals() override;
  void retry(real factor) override;
  void abandon_step() override;
  // Carried beside the solver's: the factor retries lowered the stiff bodies' mobility by
  // ("rigid_mobility_scale") and the tuned damping ("damping_Re"), where the run has them.
  CarriedState carried_state() const override;

  // Fields, for tests and tools (a changed mu needs refresh()).
  Field& P() { return P_; }
  Field& V(int axis) { return V_[axis]; }
  Field& tau(int component) { return T_[component]; }  // xx, yy, zz, xy, xz, yz
  Field& mu() { return mu_; }
  const Field& mu_max() const { return mu_max_; }  // each cell's pseudo-step viscosity
  Field& rho() { return rho_; }
  // The power law's cell fields (eta0, n, eps_ref), null when every material is Newtonian.
  PowerLawFields* power_law() { return power_ ? &*power_ : nullptr; }
  // The stiff bodies' rigid-mode corrections and their cell labels (none: no body).
  const RigidBodies& rigid_bodies() const;
  const Walls& walls() const { return walls_; }
  const Field* body_labels() const;
  // CUDA threads per block of the iteration kernel: 128, 256 (default) or 512 (benchmarks).
  void set_threads(int threads) { threads_ = threads; }
  // The launch shape of the tiled CUDA kernel: an index into stokes::tiled::kShapes (benchmarks).
  void set_tiled_shape(int index) { tiled_shape_ = index; }
  // The tiled kernel's marches along z (core/marches.hpp) in place of the shape's uniform ones
  // (tests: any marches give the same bits).
  void set_tiled_marches(const Chunks& c) { tiled_marches_ = c; }
  // Iteration constants (the numerical parameters of docs/models/stokes.md).
  Params params() const;
  // Scales that make residuals dimensionless: momentum * length / stress, continuity * mu / stress.
  real stress_scale() const { return stress_scale_; }

 private:
  Stokes(const ModelContext& ctx, const Options& opt);
  template <int Dim>
  void iterate_dim(int count);
  template <int Dim>
  std::vector<pt::Residual> residuals_dim();
  // stokes.residual_norm = rms_range: L / (P_max - P_min) and L / (largest range of a velocity
  // component), or the fixed scales while a range is still 0. One pass over the grid.
  template <int Dim>
  std::array<real, 2> range_scales(real lmax);
  template <int Dim>
  void run_iteration(const Pseudo<Dim>& ps, const State& out, const Region& r, Lane lane);
  // On the sides in `sides` (Walls::add_velocities), every side by default.
  void apply_velocity_walls(std::array<Field, 3>& V, unsigned sides = Walls::kAllSides,
                            const Region& within = kEverywhere, Lane lane = Lane::inner);
  // The stiff bodies of mu and their rigid-mode corrections (rigid_bodies.cpp; refresh()).
  void set_rigid_bodies(real stiffest);  // stiffest: the largest cell viscosity
  // The rigid-mode corrections after an iteration, then V's halos and walls again. The shift
  // waits for the walls' fill queued on `walls_lane` (the sums run beside it).
  void accelerate_rigid_bodies(int dims, Lane walls_lane);
  void set_initial();
  // After a converged solve: P and the normal stresses of the iterations (whole strain rates,
  // Params::deviatoric = 0) become the physical ones, P - 2 mu div(v) / 3 and tau - 2 mu div(v) /
  // 3, which give the same total stress, hence the same residuals, with deviatoric rates.
  void end_step() override;
  template <int Dim>
  void to_physical_stresses();
  // With the physical (deviatoric) strain rates: the power law's invariant, and the residuals
  // once end_step() has turned P and tau into the physical ones (residual_params(); while a solve
  // runs they take the iterations' whole-rate stresses, of the same total).
  Params physical_params() const;
  Params residual_params() const;
  // A new solve or attempt: the damping search and this solve's iteration count start over.
  void restart_damping();
  // Feeds the damping control one check's residuals (each over its target).
  void observe_residuals(const std::vector<pt::Residual>& r);
  // Explicit diffusion passes over mu (stokes.smoothing), once after the initial state.
  void smooth_viscosity(int passes);
  // Power law (power_law.cpp): one relaxed viscosity update from the current velocities, then
  // mu_max; mu_max and its halos from mu; the flow law's residual |eta(v) - mu| / mu.
  void update_viscosity();
  void refresh_mu_max();
  pt::Residual viscosity_residual();
  static State state_of(std::array<Field, 3>& V, Field& P, std::array<Field, 6>& T);
  State state() { return state_of(V_, P_, T_); }
  Material material() const { return {mu_.view(), mu_max_.view(), rho_.view()}; }
  // The tiled CUDA kernel runs the iterations (3-D, on a GPU, compiled by nvcc).
  bool tiled_here() const;

  std::array<Field, 3> V_, V_new_, V_old_;
  Field P_, P_new_, P_old_;
  std::array<Field, 6> T_, T_new_, T_old_;
  Field mu_, mu_max_, rho_;
  Options opt_;
  Walls walls_;             // kinds from stokes.boundary, normal velocities from the initial state
  XWallGhosts x_wall_ghosts_;  // walls_' x ghosts on this block, stored by the tiled kernel
  std::vector<pt::Residual> last_residuals_;  // the latest residuals() (diagnostics)
  bool tiled_;  // stokes.kernel = tiled, 3-D, and a block that 32-bit offsets reach
  bool march_;  // stokes.kernel = tiled, 3-D, on the CPU: the march (march.hpp)
  int threads_ = 256;
  int tiled_shape_ = 0;
  std::optional<Chunks> tiled_marches_;  // none: uniform marches of the shape's chunk
  real stress_scale_ = 1, mu_scale_ = 1;  // residual scales (set_initial)
  real r_;             // the PT iterations' r (stokes.r, or its automatic choice by refresh())
  real mu_floor_ = 0;  // the pseudo-steps' least viscosity (refresh(), stokes.pt_viscosity_floor)
  bool take_carried(const std::string& name, double value) override;
  // The stiff bodies (docs/models/stiff-bodies.md): their labels, rigid-mode
  // corrections (rebuilt by refresh(): mu may have changed) and the mobility factor (lowered by
  // retries; carried state).
  std::unique_ptr<StiffBodies> bodies_;
  bool iterating_ = false;  // P and tau in the iterations' form (begin_solve to end_step)
  real rigid_mobility_ = 0;
  std::optional<PowerLawFields> power_;    // some material has a power law (stokes.power_law)
  std::optional<DampingControl> damping_;  // stokes.Re = null: Re tuned during the solve
  long long solve_iterations_ = 0;         // iterations of this solve (attempt) so far
};

}  // namespace staghorn::stokes
