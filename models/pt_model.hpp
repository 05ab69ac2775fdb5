#pragma once
// What every pseudo-transient model shares: its block and halo exchange, the shell it computes
// first while the halo travels, the PT solver with its step's bookkeeping, and the table of its
// fields (models/field_table.hpp) from which the snapshot and restart lists follow. A model adds
// its physics: the iteration, the residuals, its boundary conditions and what a step does around
// the solve.

#include <utility>

#include "core/halo_exchange.hpp"
#include "core/iteration_graph.hpp"
#include "core/overlap.hpp"
#include "models/field_table.hpp"
#include "models/model.hpp"
#include "solvers/pt_solver.hpp"

namespace staghorn {

class PtModel : public Model, public pt::Problem {
 public:
  // One implicit step: the PT solve, then end_step().
  StepReport advance(real dt) final;
  void finish() final { ex_.synchronize(); }
  std::vector<const Field*> output_fields() const final {
    return fields_.const_with(FieldTable::output);
  }
  std::vector<Field*> state_fields() final { return fields_.with(FieldTable::state); }
  void watch_iterations(IterationWatch watch) final { solver_.watch(std::move(watch)); }
  // solver.tol of each residual over its start (tol_mode relative) or of the residual itself.
  io::ResidualMeasure residual_measure() const final {
    const pt::Options& o = solver_.options();
    return {o.relative ? "relative residual" : "absolute residual", static_cast<double>(o.tol)};
  }
  // A stop within a solve: possible where every unknown has a start-of-step copy in the table.
  bool can_abandon_step() const final { return fields_.unknowns_have_starts(); }
  // Back to the step's start (to_step_start()), then refresh().
  void abandon_step() override;
  // The factor retries lowered the solver's safety factor by ("pt_cfl_scale"), and what a model
  // adds.
  CarriedState carried_state() const override;
  void set_carried_state(const CarriedState& state) final;

 protected:
  // corners: whether the stencils reach diagonal neighbours (their halos travel too).
  PtModel(const ModelContext& ctx, const pt::Options& solver, bool corners);

  // After each converged solve, before the step's report is kept (a porosity update, say).
  virtual void end_step() {}

  // Every start-of-step copy in the table from its field (begin_solve), and back (retry); both
  // zero the pseudo-rates.
  void save_start();
  void restore_start();
  // What abandon_step() and a retry go back to before refresh(): the start copies and no
  // pseudo-rate, and what else follows from the unknowns (a porosity kept beside them, say).
  virtual void to_step_start() { restore_start(); }
  // One value of set_carried_state(); false where `name` is not this model's. A model that carries
  // more extends carried_state() and this.
  virtual bool take_carried(const std::string& name, double value);
  // Every unknown's next-iterate buffer from the unknown: walls and ghosts stay put in both.
  void copy_unknowns_to_next();
  int dims() const { return dec_.grid().dims(); }
  // Runs `count` iterations, iteration(i) queuing one (IterationGraph::run); its host state (the
  // swaps of the iterates with their next buffers) is back where it was after `period` iterations
  // (0: never, a counter say). Replayed as CUDA graphs (core/iteration_graph.hpp) on a GPU when no
  // halo goes to another rank (nothing then waits on MPI), solver.graphs allows it and `period` >
  // 0; one by one otherwise.
  template <class Iteration>
  void run_iterations(int count, int period, Iteration&& iteration) {
    if (graphs_ && period > 0) return graph_.run(ex_, Lane::inner, count, period, iteration);
    for (int i = 0; i < count; ++i) iteration(i);
  }

  const Decomposition& dec_;
  Exec ex_;
  Layout layout_;
  HaloExchange halo_;
  ShellSplit split_;
  bool hide_;  // only communication with other ranks is worth hiding, not local copies
  pt::Solver solver_;
  real cfl_;              // the solver's safety factor, lowered by retries (carried state)
  real dt_ = 0;           // the step being solved
  StepReport last_step_;  // the latest step's iterations and residuals, for diagnostics
  FieldTable fields_;

 private:
  bool graphs_;
  IterationGraph graph_;
};

}  // namespace staghorn
