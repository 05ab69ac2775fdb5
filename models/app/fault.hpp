#pragma once
#include <string>

#include "core/comm.hpp"
#include "io/schema.hpp"
#include "models/model.hpp"
#include "models/run_settings.hpp"

namespace staghorn::app {

// Test-only fault injection (config section debug.fault): one rank fails on purpose at the start
// of one step, so that tests can prove a failing rank ends the whole job with a message instead
// of hanging it. kind nan puts a NaN into the rank's first state field; kind exit kills the rank
// process abruptly (SIGKILL, as the out-of-memory killer or a lost node would), without MPI
// finalisation, leaving its peers waiting on messages that never come; kind stall leaves the
// process alive but silent, which no launcher notices: only the peers' timeout ends the job (on one
// rank, the watchdog of models/app/watchdog.hpp); kind stall_write does the same where its peers
// wait inside netCDF's collective snapshot write (of the step's snapshot), beyond our own waits'
// timeouts: only the write's deadline ends the job.
struct FaultSpec {
  std::string kind = "none";  // none, nan, exit, stall or stall_write
  int rank = 0;
  long long step = 1;

  // From the debug.fault keys; a rank outside the job throws ConfigError naming the key.
  static FaultSpec from(const FaultSettings& keys, const Comm& comm);
  // Before the snapshot of `step` is written: kind stall_write stalls the chosen rank.
  void before_write(int rank, long long step) const;
};

// Advances a model like the model itself, striking the fault before the chosen step on the chosen
// rank. `step` counts steps as the time loop does: the first step advanced is first_step + 1.
class FaultyStepper : public Stepper {
 public:
  FaultyStepper(Model& model, const FaultSpec& spec, int rank, long long first_step)
      : model_(model),
        spec_(spec),
        armed_(spec.kind != "none" && spec.kind != "stall_write" && spec.rank == rank),
        step_(first_step) {}
  StepReport advance(real dt) override;
  void finish() override { model_.finish(); }

 private:
  void strike();

  Model& model_;
  FaultSpec spec_;
  bool armed_;
  long long step_;
};

}  // namespace staghorn::app
