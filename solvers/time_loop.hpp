#pragma once
#include <functional>
#include <vector>

#include "solvers/pt_solver.hpp"

namespace staghorn {

// What one physical time step cost and how well it converged.
struct StepReport {
  long long iterations = 0;             // solver iterations (PT) or stages (explicit)
  std::vector<pt::Residual> residuals;  // empty for explicit schemes
};

// Anything the time loop can advance by one physical step.
class Stepper {
 public:
  virtual ~Stepper() = default;
  // May return while the step's work is still queued on a device.
  virtual StepReport advance(real dt) = 0;
  // Returns once the work queued so far is done. The time loop reads its clock after it: a step's
  // time then counts the step's work, not only its launches (on a GPU the kernels of a step that
  // makes no reduction, an explicit one, would otherwise finish after the clock was read).
  virtual void finish() = 0;
};

struct LoopState {
  long long step = 0;
  double time = 0;  // double in a single-precision build too: it accumulates many steps
};

// Advances a Stepper from `start` to step `last` with a fixed dt. After every step it calls
// `after_step` with the step's wall time (its work finished); at every `output_every`-th step and
// at the last it calls `output`.
class TimeLoop {
 public:
  struct Hooks {
    std::function<void(const LoopState&, const StepReport&, double seconds)> after_step;
    std::function<void(const LoopState&)> output;
  };
  TimeLoop(long long last_step, double dt, long long output_every)
      : last_(last_step), dt_(dt), every_(output_every) {}
  LoopState run(Stepper& stepper, LoopState state, const Hooks& hooks) const;

 private:
  long long last_;
  double dt_;
  long long every_;
};

}  // namespace staghorn
