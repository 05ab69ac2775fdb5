#pragma once
// exchange.timeout_s on a one-rank run: with no peer to notice, a stalled step (a hung device, a
// deadlock) would hang for ever. A thread watches for progress (core/comm.hpp: every completed
// halo exchange, also of a rank with itself, every reduction, every explicit sub-step) and ends
// the process with exit code 5 when none came within the timeout.

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace staghorn::app {

class Watchdog {
 public:
  // Watches only when `enabled` (one rank) and timeout_s > 0.
  Watchdog(bool enabled, double timeout_s);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Work that makes no reduction but is not a stall (a snapshot write): not timed while alive.
  class Pause {
   public:
    explicit Pause(Watchdog& w);
    ~Pause();

   private:
    Watchdog& w_;
  };

 private:
  void watch();

  double timeout_s_;
  std::atomic<int> paused_{0};
  std::atomic<double> resumed_{0};  // when the last pause ended (counts as progress)
  bool stop_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace staghorn::app
