#include "models/app/watchdog.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/comm.hpp"

namespace staghorn::app {

Watchdog::Watchdog(double timeout_s) : timeout_s_(timeout_s) {
  resumed_ = steady_now_s();
  if (timeout_s > 0) thread_ = std::thread([this] { watch(); });
}

Watchdog::~Watchdog() {
  if (!thread_.joinable()) return;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void Watchdog::watch_progress() {
  const std::lock_guard<std::mutex> lock(mutex_);
  progress_ = true;
  resumed_ = steady_now_s();
}

Watchdog::Deadline::Deadline(Watchdog& w, double bytes, std::string what) : w_(w) {
  const std::lock_guard<std::mutex> lock(w_.mutex_);
  w_.allowed_ = w_.timeout_s_ + bytes / kSlowestBytesPerSecond;
  w_.deadline_ = steady_now_s() + w_.allowed_;
  w_.what_ = std::move(what);
}

Watchdog::Deadline::~Deadline() {
  const std::lock_guard<std::mutex> lock(w_.mutex_);
  w_.deadline_ = 0;
  w_.resumed_ = steady_now_s();
}

std::string Watchdog::overdue() const {
  char text[512];
  const double now = steady_now_s();
  if (deadline_ > 0) {
    if (now <= deadline_) return "";
    std::snprintf(text, sizeof text,
                  "%s did not finish within %.3g s (exchange.timeout_s and the time its bytes may "
                  "take): a peer rank stalled, or the file system hangs",
                  what_.c_str(), allowed_);
    return text;
  }
  if (!progress_ || now - std::max(last_progress_s(), resumed_) <= timeout_s_) return "";
  std::snprintf(text, sizeof text,
                "no progress for %g s (exchange.timeout_s) on this one-rank run: a step stalled",
                timeout_s_);
  return text;
}

void Watchdog::watch() {
  const auto poll = std::chrono::duration<double>(std::min(1.0, timeout_s_ / 4));
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, poll, [this] { return stop_; })) {
    const std::string why = overdue();
    if (why.empty()) continue;
    // The main thread is stuck where no exception can reach it: this thread must end the process
    // itself, with the exit code of a stalled peer (under mpirun the launcher then ends the job).
    std::fprintf(stderr, "staghorn: communication failure: %s\n", why.c_str());
    std::fflush(stderr);
    std::_Exit(5);
  }
}

}  // namespace staghorn::app
