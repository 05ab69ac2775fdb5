#include "core/comm.hpp"

#include <cmath>

#include "core/error.hpp"

namespace staghorn {

MpiSession::MpiSession(int* argc, char*** argv) {
  int provided = 0;
  check_mpi(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void check_mpi(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw Error(std::string(what) + " failed: " + std::string(text, len));
}

Comm::Comm(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

double Comm::max(double local) const {
  // MPI_MAX may drop NaN; a NaN anywhere must reach every rank, so it travels as a flag.
  const bool nan = std::isnan(local);
  double in[2] = {nan ? 1.0 : 0.0, nan ? -HUGE_VAL : local}, out[2];
  check_mpi(MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
  return out[0] > 0 ? std::nan("") : out[1];
}

double Comm::sum(double local) const {
  double global = 0;
  check_mpi(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm_), "MPI_Allreduce");
  return global;
}

long long Comm::sum(long long local) const {
  long long global = 0;
  check_mpi(MPI_Allreduce(&local, &global, 1, MPI_LONG_LONG, MPI_SUM, comm_), "MPI_Allreduce");
  return global;
}

int Comm::first_failure(bool failed) const {
  int mine = failed ? rank_ : size_, first = size_;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm_), "MPI_Allreduce");
  return first < size_ ? first : -1;
}

int Comm::node_rank() const {
  MPI_Comm node;
  check_mpi(MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
            "MPI_Comm_split_type");
  int r = 0;
  MPI_Comm_rank(node, &r);
  MPI_Comm_free(&node);
  return r;
}

void Comm::barrier() const { check_mpi(MPI_Barrier(comm_), "MPI_Barrier"); }

}  // namespace staghorn
