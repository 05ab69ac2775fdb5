#pragma once
// Stopping a run early but cleanly: SIGTERM (a batch system's time limit), SIGINT (Ctrl-C) or
// run.walltime. Every rank stops at the end of the same step, or, where the model can go back to
// its step's start (Model::can_abandon_step), at the same convergence check within a long solve,
// whose step is then abandoned; a restart snapshot of the latest step completed is written, and
// the run ends with exit code kStoppedExit (main.cpp).

#include <string>

#include "core/comm.hpp"

namespace staghorn::app {

constexpr int kStoppedExit = 6;

// Thrown by run() after the restart snapshot is written; `restart` is its path.
struct Stopped {
  std::string reason;
  std::string restart;
};

// Watches for SIGTERM and SIGINT from construction to destruction (the previous handlers come
// back after), and for the wall-time budget.
class StopWatch {
 public:
  explicit StopWatch(double walltime_s);
  ~StopWatch();
  StopWatch(const StopWatch&) = delete;
  StopWatch& operator=(const StopWatch&) = delete;

  // Collective, at the end of a step that took `step_seconds` (or within a step, with 0): why
  // every rank must stop now ("" to go on). Rank 0's clock decides the wall time: it stops when
  // another step like the last would overrun the budget (within a step: when it is spent).
  std::string due(const Comm& comm, double step_seconds) const;

 private:
  double walltime_s_;
  double start_;
};

}  // namespace staghorn::app
