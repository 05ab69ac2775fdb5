#include "models/app/stop.hpp"

#include <chrono>
#include <csignal>

namespace staghorn::app {
namespace {

// The signal received (0: none). Set by the handler only: a handler may touch nothing else.
volatile std::sig_atomic_t g_signal = 0;

extern "C" void note_signal(int sig) { g_signal = sig; }

using HandlerFn = void (*)(int);
HandlerFn g_old_term = SIG_DFL, g_old_int = SIG_DFL;

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

StopWatch::StopWatch(double walltime_s) : walltime_s_(walltime_s), start_(now_s()) {
  g_signal = 0;
  g_old_term = std::signal(SIGTERM, note_signal);
  g_old_int = std::signal(SIGINT, note_signal);
}

StopWatch::~StopWatch() {
  std::signal(SIGTERM, g_old_term);
  std::signal(SIGINT, g_old_int);
}

std::string StopWatch::due(const Comm& comm, double step_seconds) const {
  double mine = g_signal;  // a signal may reach some ranks only: the largest number wins
  if (comm.root() && walltime_s_ > 0 && now_s() - start_ + step_seconds > walltime_s_)
    mine = mine > 0 ? mine : -1;
  // One reduction: signals are positive, the wall time -1 (only where no signal came).
  const double why = comm.max(mine == -1 ? 0.5 : mine);
  if (why == 0) return "";
  if (why == 0.5) return "run.walltime reached";
  if (static_cast<int>(why) == SIGTERM) return "SIGTERM received";
  if (static_cast<int>(why) == SIGINT) return "SIGINT received";
  return "signal " + std::to_string(static_cast<int>(why)) + " received";
}

}  // namespace staghorn::app
