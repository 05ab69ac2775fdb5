#pragma once
#include <ostream>
#include <string>

#include "core/timer.hpp"

namespace staghorn::io {

// How an iterative solver decides convergence, for the progress line: the residual it shows is
// the one the tolerance applies to, named after it ("relative residual 3.1e-09 (tol 1e-08)").
struct ResidualMeasure {
  std::string name;  // "relative residual", "absolute residual"; empty: none (explicit schemes)
  double tol = 0;
};

// One line per report interval on long runs: step, model time, solver iterations, residual,
// throughput and the estimated time to the end. Prints only where `enabled` (rank 0).
class Progress {
 public:
  Progress(std::ostream& out, bool enabled, double interval_s, long long first_step,
           long long last_step, ResidualMeasure measure = {});
  // After each step: `residual` as `measure` defines it; cumulative cell updates since the start
  // give the throughput.
  void step(long long step, double time, long long iterations, double residual,
            double cell_updates);
  // Within the step after the last one reported to step(): the solver's iterations so far and
  // its residual, at most once per interval (never with interval 0, which reports every step).
  void iterating(long long iterations, double residual);

 private:
  std::ostream& out_;
  bool enabled_;
  double interval_;
  long long first_, last_;
  ResidualMeasure measure_;
  Timer clock_;
  double last_report_ = -1;
  long long current_;  // the step being computed
};

std::string format_duration(double seconds);

}  // namespace staghorn::io
