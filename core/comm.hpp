#pragma once
#include <mpi.h>

#include <string>
#include <vector>

#include "core/platform.hpp"

namespace staghorn {

// Owns MPI for the life of a program. Errors return to us (MPI_ERRORS_RETURN) so that they become
// exceptions with context instead of silent aborts.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

// The MPI datatype of `real` (halo messages).
inline MPI_Datatype mpi_real() { return sizeof(real) == sizeof(float) ? MPI_FLOAT : MPI_DOUBLE; }

// A communicator and the collectives the framework needs. Reductions are order-independent where
// results must not depend on the rank count (max); sums are reduced by MPI.
//
// MPI gives no error to a rank that waits on a peer which stalled (a hung device, a deadlock) or
// died under a launcher that does not end the job. With a timeout, every wait of this Comm (its
// collectives and wait_all) gives up after that many seconds and throws PeerTimeout, which ends
// the job with a message instead of a hang. 0 waits forever.
class Comm {
 public:
  explicit Comm(MPI_Comm comm = MPI_COMM_WORLD, double timeout_s = 0);
  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }
  double timeout() const { return timeout_s_; }
  // The same communicator, waiting at most `seconds` (0: forever).
  Comm with_timeout(double seconds) const { return Comm(comm_, seconds); }

  // Completes every request; `peers[i]` (when given) is the rank that request i waits on, named in
  // the message if it times out. `what` names the operation in errors.
  void wait_all(std::vector<MPI_Request>& requests, const char* what,
                const std::vector<int>& peers = {}) const;

  double max(double local) const;
  double sum(double local) const;
  long long sum(long long local) const;
  // Element by element, in one collective: as max() and sum() of each element.
  std::vector<double> max(const std::vector<double>& local) const;
  std::vector<double> sum(const std::vector<double>& local) const;
  // The lowest rank where `failed` is true, or -1: every rank learns who failed first.
  int first_failure(bool failed) const;
  void barrier() const;
  // Rank among the ranks of this node (to pick a GPU).
  int node_rank() const;

 private:
  // Waits for one nonblocking collective.
  void wait(MPI_Request request, const char* what) const;
  // MPI_Allreduce, as a nonblocking collective waited for within the timeout.
  void all_reduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op,
                  const char* what) const;

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  double timeout_s_ = 0;
};

// The ranks of one node (shared memory) as a communicator of their own, freed with the object.
class NodeComm {
 public:
  explicit NodeComm(const Comm& comm);
  ~NodeComm();
  NodeComm(const NodeComm&) = delete;
  NodeComm& operator=(const NodeComm&) = delete;
  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Every node rank's `mine` (at most 63 characters), by node rank. Collective over the node.
  std::vector<std::string> all(const std::string& mine) const;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
};

// Steady-clock seconds when a wait of any Comm in this process last completed (a halo exchange or
// a collective): the sign of progress a watchdog looks for where no peer would notice a stall (a
// one-rank run).
double last_progress_s();
double steady_now_s();
// Marks progress where no wait completes: a halo exchange of a rank with itself or with no
// neighbour (one per PT iteration), an explicit scheme's sub-step (a one-rank run may otherwise go
// long between reductions).
void note_progress();

// Throws staghorn::Error naming `what` if an MPI call failed.
void check_mpi(int code, const char* what);

}  // namespace staghorn
