#include "models/app/watchdog.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/comm.hpp"

namespace staghorn::app {

Watchdog::Watchdog(bool enabled, double timeout_s) : timeout_s_(timeout_s) {
  resumed_ = steady_now_s();
  if (enabled && timeout_s > 0) thread_ = std::thread([this] { watch(); });
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

Watchdog::Pause::Pause(Watchdog& w) : w_(w) { ++w_.paused_; }
Watchdog::Pause::~Pause() {
  w_.resumed_ = steady_now_s();
  --w_.paused_;
}

void Watchdog::watch() {
  const auto poll = std::chrono::duration<double>(std::min(1.0, timeout_s_ / 4));
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, poll, [this] { return stop_; })) {
    const double last = std::max(last_progress_s(), resumed_.load());
    if (paused_ > 0 || steady_now_s() - last <= timeout_s_) continue;
    // The main thread is stuck where no exception can reach it: this thread must end the process
    // itself (the exit code of a stalled peer, as on several ranks).
    std::fprintf(stderr,
                 "staghorn: communication failure: no progress for %g s (exchange.timeout_s) on "
                 "this one-rank run: a step stalled\n",
                 timeout_s_);
    std::fflush(stderr);
    std::_Exit(5);
  }
}

}  // namespace staghorn::app
