#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/platform.hpp"
#include "io/schema.hpp"

namespace staghorn {
class ThreadGovernor;
}

namespace staghorn::pt {

// The global norm of one equation's residual (double in every build: the reductions are).
struct Residual {
  std::string equation;
  double norm;
  // What the raw norm was multiplied by to make it dimensionless: a scale that overflowed to Inf
  // (or whose inverse underflowed to 0) would turn any residual into 0 or NaN, so the solver
  // treats a scale that is not finite and positive as a numerical failure, never as convergence.
  double scale = 1;
  double start = 0;  // the norm at the start of the step (set by Solver::solve)
  // This equation converges at solver.tol times this factor (e.g. a looser continuity target).
  double tolerance_factor = 1;
};

// What a model offers the pseudo-transient solver for one implicit physical time step.
class Problem {
 public:
  virtual ~Problem() = default;
  // Starts a physical step of size dt from the current state (saves it as the old state and
  // resets the pseudo-velocities).
  virtual void begin_solve(real dt) = 0;
  // Runs `count` PT iterations (halo exchanges and boundary conditions included) without any
  // global reduction.
  virtual void iterate(int count) = 0;
  // Max-norms of every equation's residual (identical on all ranks, independent of their count).
  virtual std::vector<Residual> residuals() = 0;
  // After a divergence: back to the state begin_solve saved, with pseudo-steps scaled by `factor`
  // from now on (strongly nonlinear problems can need a smaller safety factor than linear ones).
  virtual void retry(real factor) = 0;
};

// The largest norm of `residuals` (0 for none).
double max_norm(const std::vector<Residual>& residuals);

struct Options {
  real tol = 1e-8;
  bool relative = true;  // tol relative to each equation's residual at the start of the step
  int ncheck = 100;
  long long max_iter = 100000;  // exactly: the last check may come after fewer than ncheck
  real cfl = 0.95;
  real divergence = 1e8;  // a residual this many times its start is divergence
  int retries = 3;        // divergences survived per step, halving the pseudo-step each time
  // Iterations within which the largest residual (over its target) must halve; a solve that
  // does not is stalled and retried as a divergence is (0: never).
  long long stall = 0;
  // On a GPU, the iterations between residual checks replayed as CUDA graphs where the model's
  // iterations allow it (models/pt_model.hpp); the same values either way. Off by default: it
  // gained nothing measurable on the benches' grids (docs/performance.md).
  bool graphs = false;

  // `stall`: the default of solver.stall (the model's choice).
  static void add_to(io::Schema& schema, long long stall = 0);
  static Options from(const io::json& config);
};

struct SolveReport {
  long long iterations = 0;  // all iterations, those of abandoned attempts included
  int retries = 0;
  std::vector<Residual> residuals;  // at the end, absolute, with their start norms
};

// Iterates a Problem to convergence: checks the residuals every `ncheck` iterations. On NaN/Inf,
// divergence or a stall it restarts the step with the pseudo-step halved, up to `retries` times,
// then throws NumericalError; also when max_iter iterations do not converge.
class Solver {
 public:
  // At every check that does not end the solve: the iterations so far (retries' included) and
  // the residuals, with their start norms.
  using Watch = std::function<void(long long iterations, const std::vector<Residual>& residuals)>;

  explicit Solver(Options opt) : opt_(opt) {}
  SolveReport solve(Problem& problem, real dt) const;
  const Options& options() const { return opt_; }
  void watch(Watch w) { watch_ = std::move(w); }
  // `g` sets the CPU threads of each batch of ncheck iterations from the cores' load (null: none;
  // not owned).
  void govern_threads(ThreadGovernor* g) { governor_ = g; }

 private:
  SolveReport attempt(Problem& problem, SolveReport& report) const;
  void iterate(Problem& problem, int count) const;
  Options opt_;
  Watch watch_;
  ThreadGovernor* governor_ = nullptr;
};

}  // namespace staghorn::pt
