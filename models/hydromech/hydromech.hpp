#pragma once
#include "core/boundary.hpp"
#include "models/hydromech/boundary.hpp"
#include "models/hydromech/kernels.hpp"
#include "models/materials/options.hpp"
#include "models/pt_model.hpp"

namespace staghorn::hydromech {

// Porosity waves by two-phase viscous compaction, reduced to porosity and effective pressure:
// implicit time steps, each solved by accelerated PT iterations on Pe (phi follows from Pe in
// closed form). Gravity acts along the last active axis (x in 1-D, y in 2-D, z in 3-D).
// Equations and numerics: docs/models/hydromech.md.
class HydroMech final : public PtModel {
 public:
  // generic: each cell recomputes phi(Pe) over its stencil (the reference); stored: phi(Pe) is
  // kept per cell and iteration in its own array; pairs: stored, two cells per thread (the GPU's
  // hot path; stored where a region has an odd x bound); rows: the CPU's row kernel (rows.hpp);
  // automatic: rows on the CPU, pairs on a GPU (docs/models/hydromech.md, "Kernels").
  enum class Kernel { automatic, generic, stored, pairs, rows };
  // Every key of the reduced variant, read once (options.cpp, beside the schema).
  struct Options {
    Kernel kernel;
    Material material;
    PeBcs sides;
    pt::Options solver;
    io::json initial;              // hydromech.initial, read by set_initial
    materials::Options materials;  // hydromech.materials: the background porosity
    static Options from(const io::json& config);
  };

  explicit HydroMech(const ModelContext& ctx);

  static void add_options(io::Schema& schema);
  static ModelInfo info();

  void refresh() override;
  std::vector<Diagnostic> diagnostics() override;
  // generic, rows: Pe, phi_old and dPe/dtau read, Pe_new and dPe/dtau written; stored, pairs:
  // also phi(Pe) read and phi(Pe_new) written.
  double bytes_per_cell_iteration() const override {
    const Kernel k = kernel_in_use();
    return (k == Kernel::generic || k == Kernel::rows ? 5 : 7) * sizeof(real);
  }
  // The kernel that runs: `automatic` and `rows` resolved for the backend (rows on the CPU only).
  Kernel kernel_in_use() const;

  const Field& phi() const { return phi_; }
  const Field& Pe() const { return Pe_; }
  int up_axis() const { return up_; }

  // pt::Problem
  void begin_solve(real dt) override;
  void iterate(int count) override;
  std::vector<pt::Residual> residuals() override;
  void retry(real factor) override;

 private:
  HydroMech(const ModelContext& ctx, const Options& opt);
  void apply_porosity_ghosts();
  Coefficients coefficients() const;
  template <int Dim>
  void iterate_dim(int count);
  template <int Dim>
  void iterate_stored(int count);
  template <int Dim>
  void update_stored(const Coefficients& co, const FaceGhosts& ghosts, unsigned copies, Region r,
                     Lane lane);
  bool pairs_fit() const;
  FaceGhosts face_ghosts(const Coefficients& co) const;
  unsigned ghost_copies(const FaceGhosts& ghosts) const;
  void porosity_of_halo(const FaceGhosts& set);
  // absolute: max |R|; otherwise the step's balance (rows kernel: R through dPe/dtau as scratch).
  template <int Dim>
  real residual_sum(bool absolute);
  real residual_reduce(bool absolute);
  // The step's porosity from the converged Pe, then its halos (once per step).
  void end_step() override;
  void set_initial(const io::json& ic, const materials::Options& materials);

  int up_;  // the axis gravity acts along
  Kernel kernel_;
  Field phi_, Pe_, phi_old_, Pe_new_, dPedtau_;
  Field Pe_start_;             // Pe at the step's start: a stop within a solve goes back to it
  Field phi_it_, phi_it_new_;  // stored kernel: phi(phi_old, Pe) and phi(phi_old, Pe_new)
  bool phi_it_valid_ = false;  // phi_it_ matches Pe_ and phi_old_ (halo included)
  PeBcs pe_bcs_;
  Material mat_;
  real balance_ = 0;  // the latest step's fluid volume balance error, relative
};

}  // namespace staghorn::hydromech
