// ThreadGovernor: the threads left to a rank whose cores other processes keep busy, the busy
// time read from /proc/stat, and the threads it sets.
#include "core/thread_governor.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/threads.hpp"

namespace staghorn {
namespace {

TEST(ThreadGovernor, RunsOnTheCoresOtherProcessesLeaveFree) {
  EXPECT_EQ(ThreadGovernor::threads_for(2, 2, 0.0), 2);
  EXPECT_EQ(ThreadGovernor::threads_for(2, 2, 0.3), 2);   // a daemon's share: still worth two
  EXPECT_EQ(ThreadGovernor::threads_for(2, 2, 0.67), 1);  // `yes` beside two spinning threads
  EXPECT_EQ(ThreadGovernor::threads_for(2, 2, 1.0), 1);   // `yes` beside one
  EXPECT_EQ(ThreadGovernor::threads_for(16, 16, 0.94), 15);
  // `yes` sharing a core with one of 16 spinning threads gets half of it: below the nearest
  // rounding's threshold, but one thread at half speed holds the other 15.
  EXPECT_EQ(ThreadGovernor::threads_for(16, 16, 0.5), 15);
  EXPECT_EQ(ThreadGovernor::threads_for(16, 16, 0.3), 15);
  EXPECT_EQ(ThreadGovernor::threads_for(16, 16, 0.2), 16);  // noise of the tick counts
  EXPECT_EQ(ThreadGovernor::threads_for(3, 3, 0.3), 3);     // below 1 / 3
  EXPECT_EQ(ThreadGovernor::threads_for(3, 3, 0.4), 2);
  EXPECT_EQ(ThreadGovernor::threads_for(16, 16, 2.1), 14);
  EXPECT_EQ(ThreadGovernor::threads_for(16, 16, 40.0), 1);   // never fewer than one
  EXPECT_EQ(ThreadGovernor::threads_for(8, 16, 0.0), 8);     // never more than planned
  EXPECT_EQ(ThreadGovernor::threads_for(4, 4, -0.2), 4);     // rounding below zero: none
}

TEST(ThreadGovernor, CountsTheBusyTicksOfItsCoresOnly) {
  const std::string stat =
      "\ncpu  100 0 100 900 0 0 0 0 0 0\n"
      "cpu0 10 1 5 100 7 2 3 4 0 0\n"
      "cpu1 20 0 10 200 0 0 0 6 0 0\n"
      "cpu12 1000 0 0 0 0 0 0 0 0 0\n"
      "intr 12345\n";
  // user + nice + system + irq + softirq + steal; idle and iowait are not busy.
  EXPECT_EQ(ThreadGovernor::busy_ticks(stat, {0}), 10 + 1 + 5 + 2 + 3 + 4);
  EXPECT_EQ(ThreadGovernor::busy_ticks(stat, {1}), 36);
  EXPECT_EQ(ThreadGovernor::busy_ticks(stat, {0, 1}), 25 + 36);
  EXPECT_EQ(ThreadGovernor::busy_ticks(stat, {12}), 1000);  // "cpu1 " does not match cpu12
  EXPECT_EQ(ThreadGovernor::busy_ticks(stat, {2}), -1);
  // A kernel without the steal column.
  EXPECT_EQ(ThreadGovernor::busy_ticks("\ncpu0 1 2 3 4 5 6 7\n", {0}), 1 + 2 + 3 + 6 + 7);
}

TEST(ThreadGovernor, ReadsThisMachinesLoadAndSetsTheThreads) {
  std::ifstream in("/proc/stat");
  if (!in) GTEST_SKIP() << "no /proc/stat";
  std::ostringstream text;
  text << in.rdbuf();
  const std::vector<int> cpus = affinity_cpus();
  ASSERT_FALSE(cpus.empty());
  EXPECT_GE(ThreadGovernor::busy_ticks("\n" + text.str(), cpus), 0);

  ThreadGovernor g(3, cpus);
  const int first = g.begin_batch();  // the plan, unless a window already passed
  EXPECT_EQ(omp_get_max_threads(), first);
  EXPECT_GE(first, 1);
  EXPECT_LE(first, 3);
  std::this_thread::sleep_for(std::chrono::duration<double>(1.5 * ThreadGovernor::kWindowSeconds));
  g.end_batch();
  EXPECT_GE(g.foreign_load(), 0.0);
  EXPECT_LE(g.foreign_load(), 1.2 * static_cast<double>(cpus.size()));  // a tick's slack
  const int n = g.begin_batch();
  EXPECT_EQ(n, g.chosen());
  EXPECT_EQ(omp_get_max_threads(), n);
  EXPECT_EQ(n, ThreadGovernor::threads_for(3, static_cast<int>(cpus.size()), g.foreign_load()));
}

TEST(ThreadGovernor, OneThreadIsNeverChanged) {
  ThreadGovernor g(1, affinity_cpus());
  std::this_thread::sleep_for(std::chrono::duration<double>(1.5 * ThreadGovernor::kWindowSeconds));
  g.end_batch();
  EXPECT_EQ(g.begin_batch(), 1);
}

}  // namespace
}  // namespace staghorn
