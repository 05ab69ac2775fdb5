#pragma once
// How many OpenMP threads the iterations run on the CPU while other processes share its cores.
// A kernel's threads wait for each other at its end, so one thread that shares its core with
// another process holds all the others (a small 2-D solve ran 15 times slower on 2 threads than
// on one beside a busy build). The governor measures, over windows of kWindowSeconds, how many
// of this rank's cores other processes keep busy: the cores' busy time (/proc/stat, steal time
// included) less this process's own CPU time. It then runs on the cores left free, and back on
// all of them once the load has gone. No trial runs on a slow count: a run under load pays at
// most one window, a quiet one nothing. Results do not depend on the thread count (kernels
// compute cells independently, sums are exact: core/exact_sum.hpp), so no bit changes.
// Where /proc/stat cannot be read it keeps the planned threads.

#include <string>
#include <vector>

namespace staghorn {

class ThreadGovernor {
 public:
  // max_threads: the planned count (plan_threads); cpus: this rank's cores (its affinity mask),
  // which no other rank of the run shares.
  ThreadGovernor(int max_threads, std::vector<int> cpus);

  // Both take a load sample and decide once a window has passed since the last one (the first
  // window starts when the governor is made: a model's set-up measures the first batch's load).
  // Sets the threads of the next batch of iterations (omp_set_num_threads) and returns them.
  int begin_batch();
  // After the batch.
  void end_batch();

  int chosen() const { return chosen_; }
  // Other processes' load on this rank's cores in the latest window, in cores.
  double foreign_load() const { return foreign_; }

  // The threads for `max` planned on `cores` cores of which other processes keep `foreign`
  // busy: the whole cores left, and the partly taken one where its taken share is below
  // max(1 / threads, kTakenShare); within [1, max].
  static int threads_for(int max, int cores, double foreign);
  static constexpr double kTakenShare = 0.25;
  // The busy clock ticks (user, nice, system, irq, softirq, steal) of the listed cpus in a
  // /proc/stat text; -1 where a cpu is missing.
  static long long busy_ticks(const std::string& proc_stat, const std::vector<int>& cpus);

  // The shortest window a sample spans: /proc/stat counts in ticks of 10 ms, so 2 cores give 20.
  static constexpr double kWindowSeconds = 0.1;

 private:
  struct Sample {
    long long busy_ticks = -1;
    double process_cpu_s = 0, wall_s = 0;
  };
  Sample sample() const;
  void update();

  int max_;
  std::vector<int> cpus_;
  double tick_s_;
  Sample last_;
  int chosen_;
  double foreign_ = 0;
};

}  // namespace staghorn
