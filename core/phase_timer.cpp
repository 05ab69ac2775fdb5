#include "core/phase_timer.hpp"

#include <chrono>
#include <deque>
#include <vector>

#include "core/error.hpp"

#ifdef STAGHORN_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace staghorn {

const char* to_string(Phase p) {
  static const char* names[kPhases] = {"compute", "pack", "transfer", "unpack", "wait"};
  return names[static_cast<int>(p)];
}

namespace {
// The GPU spans a long run keeps unread at most (twice as many before the older half is read).
constexpr std::size_t kSpansKept = 256;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

// Open and closed spans. GPU events are recycled once read, so a long run holds a bounded pool.
struct PhaseTimer::Events {
  struct Span {
    Phase phase;
    Lane lane;
    double host_start = 0;
#ifdef STAGHORN_HAVE_CUDA
    cudaEvent_t start = nullptr, stop = nullptr;
#endif
    bool closed = false;
  };
  std::deque<Span> spans;  // spans[i] has the id first + i
  long long first = 0;
#ifdef STAGHORN_HAVE_CUDA
  std::vector<cudaEvent_t> pool;
  cudaEvent_t event() {
    if (pool.empty()) {
      cudaEvent_t e;
      check_cuda(cudaEventCreate(&e), "cudaEventCreate (timer)");
      return e;
    }
    cudaEvent_t e = pool.back();
    pool.pop_back();
    return e;
  }
  // Reads up to `count` spans in order into `seconds`, up to the first one still open (ids stay
  // valid: only the front goes); waits for their events.
  void read(std::size_t count, std::array<double, kPhases>& seconds) {
    for (; count > 0 && !spans.empty() && spans.front().closed; --count) {
      const Span& s = spans.front();
      check_cuda(cudaEventSynchronize(s.stop), "cudaEventSynchronize (timer)");
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, s.start, s.stop), "cudaEventElapsedTime");
      seconds[static_cast<int>(s.phase)] += 1e-3 * ms;
      pool.push_back(s.start);
      pool.push_back(s.stop);
      spans.pop_front();
      ++first;
    }
  }
  ~Events() {
    for (auto& s : spans) cudaEventDestroy(s.start), cudaEventDestroy(s.stop);
    for (auto e : pool) cudaEventDestroy(e);
  }
#endif
};

PhaseTimer::PhaseTimer(const Exec& ex) : ex_(ex), events_(std::make_unique<Events>()) {}
PhaseTimer::~PhaseTimer() = default;

long long PhaseTimer::open(Phase phase, Lane lane) {
  if (!enabled_) return -1;
  Events::Span s{phase, lane};
#ifdef STAGHORN_HAVE_CUDA
  if (ex_.on_device()) {
    s.start = events_->event();
    s.stop = events_->event();
    check_cuda(cudaEventRecord(s.start, ex_.stream(lane)), "cudaEventRecord (timer)");
  }
#endif
  if (!ex_.on_device()) s.host_start = now();
  events_->spans.push_back(s);
  return events_->first + static_cast<long long>(events_->spans.size()) - 1;
}

void PhaseTimer::close(long long span) {
  if (span < 0) return;
  auto& s = events_->spans.at(span - events_->first);
  s.closed = true;
#ifdef STAGHORN_HAVE_CUDA
  if (ex_.on_device()) {
    check_cuda(cudaEventRecord(s.stop, ex_.stream(s.lane)), "cudaEventRecord (timer)");
    // Keeps the pool bounded in long runs by reading the older half of the spans: long done,
    // so reading them waits for nothing (reading all would wait for the newest, and leave the
    // GPU idle while the host queues the work after it).
    if (events_->spans.size() > 2 * kSpansKept)
      events_->read(events_->spans.size() - kSpansKept, seconds_);
    return;
  }
#endif
  seconds_[static_cast<int>(s.phase)] += now() - s.host_start;
  while (!events_->spans.empty() && events_->spans.front().closed) {
    events_->spans.pop_front();
    ++events_->first;
  }
}

void PhaseTimer::add(Phase phase, double seconds) {
  if (enabled_) seconds_[static_cast<int>(phase)] += seconds;
}

std::array<double, kPhases> PhaseTimer::totals() {
#ifdef STAGHORN_HAVE_CUDA
  if (ex_.on_device()) events_->read(events_->spans.size(), seconds_);
#endif
  return seconds_;
}

void PhaseTimer::reset() {
  totals();
  seconds_ = {};
}

}  // namespace staghorn
