#include "models/app/fault.hpp"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <thread>
#include <vector>

namespace staghorn::app {

void FaultSpec::add_options(io::Schema& s) {
  using io::Type;
  s.add("debug.fault.kind", Type::string, "none",
        "Test only: make one rank fail on purpose before step debug.fault.step: nan (a NaN in "
        "its first state field), exit (the rank process is killed, as a lost peer), stall "
        "(the rank stops answering but lives on, as a hung device would leave it) or "
        "stall_write (the same before the step's snapshot is written, while its peers write)")
      .one_of({"none", "nan", "exit", "stall", "stall_write"});
  s.add("debug.fault.rank", Type::integer, 0, "Test only: the rank that fails").at_least(0);
  s.add("debug.fault.step", Type::integer, 1, "Test only: the step before which it fails")
      .at_least(1);
}

FaultSpec FaultSpec::from(const io::json& c, const Comm& comm) {
  FaultSpec f;
  f.kind = io::at_path(c, "debug.fault.kind").get<std::string>();
  f.rank = io::at_path(c, "debug.fault.rank").get<int>();
  f.step = io::at_path(c, "debug.fault.step").get<long long>();
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
