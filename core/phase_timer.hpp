#pragma once
#include <array>
#include <memory>
#include <string>

#include "core/backend.hpp"

namespace staghorn {

// The phases of a step a user wants to see apart, to tell whether communication is hidden.
// compute: kernels that produce values (shell and inner region); pack/unpack: halo buffers;
// transfer: the halo travelling (staging copies included); wait: the host blocked on a transfer.
enum class Phase { compute, pack, transfer, unpack, wait };
constexpr int kPhases = 5;
const char* to_string(Phase p);

// Accumulates time per phase. On the GPU a phase is timed between two events on its lane (so
// overlapping phases each count in full); on the CPU, and for `wait`, by the host clock.
class PhaseTimer {
 public:
  explicit PhaseTimer(const Exec& ex);
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

  // A disabled timer records nothing and costs nothing (open() returns -1).
  void enable(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }
  // Opens a span of `phase` on `lane` and returns its id; close(id) ends it. Spans may overlap.
  long long open(Phase phase, Lane lane);
  void close(long long span);
  void add(Phase phase, double seconds);  // host-measured time
  // Seconds per phase so far (waits for the events still pending).
  std::array<double, kPhases> totals();
  void reset();

 private:
  struct Events;
  Exec ex_;
  std::unique_ptr<Events> events_;
  std::array<double, kPhases> seconds_{};
  bool enabled_ = true;
};

}  // namespace staghorn
