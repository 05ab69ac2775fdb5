#include "models/app/fault.hpp"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <thread>
#include <vector>

namespace staghorn::app {

FaultSpec FaultSpec::from(const FaultSettings& keys, const Comm& comm) {
  FaultSpec f;
  f.kind = keys.kind;
  f.rank = keys.rank;
  f.step = keys.step;
  if (f.kind != "none" && f.rank >= comm.size())
    throw io::ConfigError("debug.fault.rank: " + std::to_string(f.rank) +
                          " is not a rank of this " + std::to_string(comm.size()) + "-rank job");
  return f;
}

namespace {

[[noreturn]] void stall() {  // until the job is ended around it
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

}  // namespace

void FaultSpec::before_write(int r, long long s) const {
  if (kind != "stall_write" || r != rank || s != step) return;
  std::cerr << "staghorn: debug.fault: rank " << rank << " injects 'stall_write' at the snapshot "
            << "of step " << step << std::endl;
  stall();
}

StepReport FaultyStepper::advance(real dt) {
  ++step_;
  if (armed_ && step_ == spec_.step) strike();
  return model_.advance(dt);
}

void FaultyStepper::strike() {
  std::cerr << "staghorn: debug.fault: rank " << spec_.rank << " injects '" << spec_.kind
            << "' before step " << step_ << std::endl;
  if (spec_.kind == "exit") {
    std::raise(SIGKILL);
    std::_Exit(137);  // not reached: SIGKILL cannot be caught
  }
  if (spec_.kind == "stall") stall();
  // The first interior cell, through the host: the same on either backend, and done only once.
  Field& f = *model_.state_fields().front();
  std::vector<real> values = f.to_host();
  values[f.layout().origin()] = std::numeric_limits<real>::quiet_NaN();
  f.from_host(values);
}

}  // namespace staghorn::app
