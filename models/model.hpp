#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/decomposition.hpp"
#include "core/field.hpp"
#include "io/progress.hpp"
#include "io/schema.hpp"
#include "io/time_series.hpp"
#include "io/units.hpp"
#include "models/run_settings.hpp"
#include "solvers/time_loop.hpp"

namespace staghorn {

// Everything a model is built from: the resolved config and the machinery of the run.
struct ModelContext {
  const io::json& config;
  const RunSettings& run;  // the run keys of `config`, read
  const Decomposition& dec;
  const Exec& exec;

  // This rank's block with the halo the decomposition was built for (none on inactive axes).
  Layout layout() const { return {dec.local_cells(), {dec.halo(0), dec.halo(1), dec.halo(2)}}; }
  // exchange.boundary_width: the shell computed first while its halo travels.
  Int3 boundary_width() const { return run.boundary_width; }
  // exchange.hide_communication as asked (unset: on GPUs); a model also needs something to hide
  // (remote peers).
  bool hide_communication() const { return run.hides(exec.on_device()); }
};

// A named global diagnostic (mass, max, ...), identical on every rank.
using Diagnostic = std::pair<std::string, real>;

// Numbers a model carries from one step to the next besides its fields (a PT solver's safety
// factor lowered by a retry, a damping tuned during a solve), by name (letters, digits, '_').
using CarriedState = std::vector<std::pair<std::string, double>>;

// Within a step, at each convergence check of an iterative solve: the iterations so far and the
// residuals (pt::Solver::Watch).
using IterationWatch = pt::Solver::Watch;

// A physical model: its fields, one physical time step, and what it reports. Models never call MPI
// or CUDA directly; they work through core (for_each, HaloExchange, reductions) and a solver.
class Model : public Stepper {
 public:
  // Fields written to snapshots; a restart reads back the subset that is the state.
  virtual std::vector<const Field*> output_fields() const = 0;
  virtual std::vector<Field*> state_fields() = 0;
  // Fills halos and ghosts: the caller calls it once the state is set (the constructor's initial
  // condition, or a restart), on all ranks together (it communicates; constructors do not).
  virtual void refresh() = 0;
  virtual std::vector<Diagnostic> diagnostics() = 0;
  // After refresh(), before anything is written: throws ConfigError (naming the key) when the
  // state and `dt` cannot make a stable step (an explicit scheme's fixed step above its limit).
  // Collective.
  virtual void check_time_step(real dt) { (void)dt; }
  // Units and long names of the diagnostics, by name, for diagnostics.nc (unlisted: units "1").
  virtual std::vector<io::SeriesColumn> diagnostic_columns() const { return {}; }
  // Bytes one iteration must move per cell at least (each array read once, each updated array
  // also written once): the A_eff of T_eff = A_eff / t_it.
  virtual double bytes_per_cell_iteration() const = 0;
  // Implicit models call `watch` at each convergence check (a long solve's progress line);
  // explicit ones have none to report. An empty function stops it.
  virtual void watch_iterations(IterationWatch watch) { (void)watch; }
  // What the residual of the progress line is: the one an implicit model's tolerance applies to;
  // explicit ones have none.
  virtual io::ResidualMeasure residual_measure() const { return {}; }
  // A stop within a step (a signal during a long implicit solve): whether the model can go back
  // to the state at the step's start exactly (abandon_step, collective), so that a snapshot
  // written then restarts to the bits of a run never stopped. A model that cannot is stopped at
  // the step's end instead.
  virtual bool can_abandon_step() const { return false; }
  virtual void abandon_step() {}
  // What the model carries from step to step besides its fields: written with every snapshot and
  // set again by a restart (before refresh()), so that the run continues to the bit. A step that
  // fails or is abandoned leaves it as it was at the step's start.
  virtual CarriedState carried_state() const { return {}; }
  // Sets values carried_state() names; a name it does not know, or a value it cannot have (an
  // edited file): ConfigError naming it.
  virtual void set_carried_state(const CarriedState& state) {
    if (!state.empty())
      throw io::ConfigError("carries '" + state.front().first + "', which this model does not");
  }
};

// How a model announces itself to the registry.
struct ModelInfo {
  std::string name;
  std::string summary;
  void (*add_options)(io::Schema&);
  std::unique_ptr<Model> (*create)(const ModelContext&);
  int halo = 1;            // halo width its stencils need
  io::UnitSystem units{};  // what its outputs are measured in (default: dimensionless)
  // Padded arrays it allocates (at most, over its variants and dimensions): with the local block,
  // the memory a rank needs, checked against what it has before anything is allocated.
  int arrays = 8;
};

}  // namespace staghorn
