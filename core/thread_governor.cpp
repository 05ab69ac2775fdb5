#include "core/thread_governor.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <sstream>

namespace staghorn {
namespace {

std::string read_proc_stat() {
  std::ifstream in("/proc/stat");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double process_cpu_seconds() {
  timespec t{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return 0;
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

ThreadGovernor::ThreadGovernor(int max_threads, std::vector<int> cpus)
    : max_(std::max(1, max_threads)), cpus_(std::move(cpus)), chosen_(max_) {
  const long hz = sysconf(_SC_CLK_TCK);
  tick_s_ = hz > 0 ? 1.0 / static_cast<double>(hz) : 0.01;
  last_ = sample();
}

int ThreadGovernor::threads_for(int max, int cores, double foreign) {
  max = std::max(1, max);
  const double free = static_cast<double>(cores) - std::max(0.0, foreign);
  if (free >= max) return max;
  // `whole` free cores and one partly taken. A thread on that core runs at its free share and
  // holds the others at each kernel's end: whole + 1 threads beat whole while the taken share
  // stays below 1 / (whole + 1). The floor of kTakenShare keeps a daemon's noise on many cores
  // from costing a thread, and sits below the half core that one busy process shows while it
  // shares a core with one of ours (every core filled).
  const int whole = static_cast<int>(std::floor(free));
  const double taken = 1.0 - (free - whole);
  const bool use_partial = taken < std::max(1.0 / (whole + 1), kTakenShare);
  return std::clamp(whole + (use_partial ? 1 : 0), 1, max);
}

long long ThreadGovernor::busy_ticks(const std::string& proc_stat, const std::vector<int>& cpus) {
  long long total = 0;
  for (int c : cpus) {
    const std::string tag = "\ncpu" + std::to_string(c) + " ";
    const std::size_t at = proc_stat.find(tag);
    if (at == std::string::npos) return -1;
    std::istringstream line(proc_stat.substr(at + tag.size(), 256));
    long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0,
              steal = 0;
    if (!(line >> user >> nice >> system >> idle >> iowait >> irq >> softirq)) return -1;
    line >> steal;  // absent on old kernels
    total += user + nice + system + irq + softirq + steal;
  }
  return total;
}

ThreadGovernor::Sample ThreadGovernor::sample() const {
  Sample s;
  s.busy_ticks = busy_ticks("\n" + read_proc_stat(), cpus_);
  s.process_cpu_s = process_cpu_seconds();
  s.wall_s = wall_seconds();
  return s;
}

int ThreadGovernor::begin_batch() {
  update();
  omp_set_num_threads(chosen_);
  return chosen_;
}

void ThreadGovernor::end_batch() { update(); }

void ThreadGovernor::update() {
  if (max_ == 1 || last_.busy_ticks < 0) return;
  const double wall = wall_seconds();
  if (wall - last_.wall_s < kWindowSeconds) return;
  const Sample now = sample();
  if (now.busy_ticks < 0) return;
  const double busy = static_cast<double>(now.busy_ticks - last_.busy_ticks) * tick_s_;
  const double own = now.process_cpu_s - last_.process_cpu_s;
  foreign_ = std::max(0.0, busy - own) / (now.wall_s - last_.wall_s);
  chosen_ = threads_for(max_, static_cast<int>(cpus_.size()), foreign_);
  last_ = now;
}

}  // namespace staghorn
