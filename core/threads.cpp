#include "core/threads.hpp"

#include <omp.h>
#include <sched.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/error.hpp"

namespace staghorn {
namespace {

constexpr int kWords = 16;  // masks of up to 1024 cores
using Mask = std::array<std::uint64_t, kWords>;

Mask own_mask() {
  Mask m{};
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    m[0] = 1;  // unknown: count one core
    return m;
  }
  for (int c = 0; c < kWords * 64 && c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) m[c / 64] |= std::uint64_t(1) << (c % 64);
  return m;
}

int count(const Mask& m) {
  int n = 0;
  for (std::uint64_t w : m) n += __builtin_popcountll(w);
  return n;
}

bool overlap(const Mask& a, const Mask& b) {
  for (int w = 0; w < kWords; ++w)
    if (a[w] & b[w]) return true;
  return false;
}

}  // namespace

std::vector<int> affinity_cpus() {
  const Mask m = own_mask();
  std::vector<int> cpus;
  for (int c = 0; c < kWords * 64; ++c)
    if (m[c / 64] >> (c % 64) & 1) cpus.push_back(c);
  return cpus;
}

std::string ThreadPlan::describe(int node_ranks) const {
  return std::to_string(node_ranks) + (node_ranks == 1 ? " rank x " : " ranks x ") +
         std::to_string(threads) + (threads == 1 ? " thread on " : " threads on ") +
         std::to_string(node_cores) + (node_cores == 1 ? " core" : " cores");
}

ThreadPlan plan_threads(const NodeComm& node) {
  const Mask mine = own_mask();
  std::vector<Mask> every(static_cast<std::size_t>(node.size()));
  check_mpi(MPI_Allgather(mine.data(), kWords, MPI_UINT64_T, every.data(), kWords, MPI_UINT64_T,
                          node.get()),
            "MPI_Allgather (affinity masks)");
  ThreadPlan p;
  p.cores = count(mine);
  p.sharing = 0;
  Mask all{};
  for (const Mask& m : every) {
    if (overlap(m, mine)) ++p.sharing;
    for (int w = 0; w < kWords; ++w) all[w] |= m[w];
  }
  p.node_cores = count(all);
  const char* env = std::getenv("OMP_NUM_THREADS");
  p.from_environment = env != nullptr && *env != '\0';
  if (p.from_environment) {
    p.threads = omp_get_max_threads();
  } else {
    p.threads = p.cores / (p.sharing > 0 ? p.sharing : 1);
    if (p.threads < 1) p.threads = 1;
    omp_set_num_threads(p.threads);
  }
  int total = 0;
  check_mpi(MPI_Allreduce(&p.threads, &total, 1, MPI_INT, MPI_SUM, node.get()),
            "MPI_Allreduce (threads)");
  p.node_threads = total;
  return p;
}

}  // namespace staghorn
