// plan_threads: without OMP_NUM_THREADS each rank takes its share of the cores it may run on
// (never fewer than one thread), the node's ranks together start no more threads than the node
// has cores unless there are more ranks than cores, and OpenMP runs the planned count.
#include "core/threads.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstdlib>

namespace staghorn {
namespace {

TEST(Threads, EachRankTakesItsShareOfTheCoresItMayUse) {
  unsetenv("OMP_NUM_THREADS");
  const Comm comm;
  const NodeComm node(comm);
  const ThreadPlan p = plan_threads(node);
  EXPECT_FALSE(p.from_environment);
  EXPECT_GE(p.cores, 1);
  EXPECT_GE(p.sharing, 1);
  EXPECT_LE(p.sharing, node.size());
  EXPECT_EQ(p.threads, std::max(1, p.cores / p.sharing));
  EXPECT_EQ(omp_get_max_threads(), p.threads);
  EXPECT_LE(p.node_threads, std::max(p.node_cores, node.size()));
  EXPECT_EQ(p.oversubscribed(), p.node_threads > p.node_cores);
}

TEST(Threads, OmpNumThreadsIsTakenAsGiven) {
  setenv("OMP_NUM_THREADS", "3", 1);
  omp_set_num_threads(3);
  const Comm comm;
  const ThreadPlan p = plan_threads(NodeComm(comm));
  EXPECT_TRUE(p.from_environment);
  EXPECT_EQ(p.threads, 3);
  EXPECT_EQ(omp_get_max_threads(), 3);
  EXPECT_EQ(p.node_threads, 3 * NodeComm(comm).size());
}

TEST(Threads, DescribesRanksThreadsAndCores) {
  ThreadPlan p;
  p.threads = 2, p.node_cores = 16;
  EXPECT_EQ(p.describe(4), "4 ranks x 2 threads on 16 cores");
  p.threads = 1, p.node_cores = 1;
  EXPECT_EQ(p.describe(1), "1 rank x 1 thread on 1 core");
}

}  // namespace
}  // namespace staghorn
