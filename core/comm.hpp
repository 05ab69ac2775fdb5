#pragma once
#include <mpi.h>

#include <string>

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
class Comm {
 public:
  explicit Comm(MPI_Comm comm = MPI_COMM_WORLD);
  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  bool root() const { return rank_ == 0; }

  double max(double local) const;
  double sum(double local) const;
  long long sum(long long local) const;
  // The lowest rank where `failed` is true, or -1: every rank learns who failed first.
  int first_failure(bool failed) const;
  void barrier() const;
  // Rank among the ranks of this node (to pick a GPU).
  int node_rank() const;

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
};

// Throws staghorn::Error naming `what` if an MPI call failed.
void check_mpi(int code, const char* what);

}  // namespace staghorn
