#pragma once
// How many OpenMP threads each rank runs. Without OMP_NUM_THREADS every rank would start one
// thread per core of the machine, and ranks sharing a node would run (ranks x cores) spinning
// threads on its cores: 4 ranks on 2 cores ran 350x slower than one rank. By default each rank
// takes its share of the cores it may run on (its affinity mask, which a launcher's binding
// narrows), shared with the node's ranks whose masks overlap its own.

#include <string>
#include <vector>

#include "core/comm.hpp"

namespace staghorn {

struct ThreadPlan {
  int threads = 1;          // OpenMP threads of this rank
  int cores = 1;            // cores this rank may run on (its affinity mask)
  int sharing = 1;          // node ranks whose masks overlap this rank's (itself included)
  int node_cores = 1;       // cores of the node's ranks together (the union of their masks)
  int node_threads = 1;     // threads of the node's ranks together
  bool from_environment = false;  // OMP_NUM_THREADS was set: taken as given

  bool oversubscribed() const { return node_threads > node_cores; }
  // "4 ranks x 1 thread on 2 cores" (this node).
  std::string describe(int node_ranks) const;
};

// The cores this process may run on (its affinity mask), as cpu numbers.
std::vector<int> affinity_cpus();

// Decides this rank's threads (collective over the node) and sets them with omp_set_num_threads
// unless OMP_NUM_THREADS is set.
ThreadPlan plan_threads(const NodeComm& node);

}  // namespace staghorn
