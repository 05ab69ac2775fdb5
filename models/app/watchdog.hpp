#pragma once
// Where MPI gives no error, a thread ends the process with exit code 5 (a stalled or lost peer)
// instead of letting it hang:
//  - on a one-rank run (watch_progress), when no progress came within exchange.timeout_s: a step
//    stalled (a hung device, a deadlock). Progress is what core/comm.hpp counts: every halo
//    exchange (also of a rank with itself, and of one with no neighbour: each PT iteration makes
//    one), every reduction, every explicit sub-step;
//  - on any run, when a Deadline passes: a collective snapshot write or read that did not finish
//    within exchange.timeout_s plus the time its bytes may take. A peer frozen inside netCDF's
//    collective calls is out of reach of the timeouts of our own waits.

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace staghorn::app {

class Watchdog {
 public:
  // The slowest transfer a deadline allows for (bytes per second), beside exchange.timeout_s.
  static constexpr double kSlowestBytesPerSecond = 10e6;

  // Watches nothing when timeout_s is 0 (wait forever).
  explicit Watchdog(double timeout_s);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // From now on, no progress for timeout_s ends the process (a one-rank run: no peer notices).
  void watch_progress();

  // Work that must end within exchange.timeout_s plus the time `bytes` may take at the slowest
  // rate (named by `what` in the message), while this object lives; progress is not watched
  // meanwhile (the work makes none). One at a time.
  class Deadline {
   public:
    Deadline(Watchdog& w, double bytes, std::string what);
    ~Deadline();
    Deadline(const Deadline&) = delete;
    Deadline& operator=(const Deadline&) = delete;

   private:
    Watchdog& w_;
  };

 private:
  void watch();
  // Why the process must end now, or "".
  std::string overdue() const;

  double timeout_s_;
  bool stop_ = false;
  bool progress_ = false;  // watch_progress() was called
  double resumed_ = 0;     // when the last deadline ended (counts as progress)
  double deadline_ = 0;    // when the current deadline passes (0: none)
  double allowed_ = 0;     // its length
  std::string what_;       // what it bounds
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace staghorn::app
