#include "core/perf_model.hpp"

#include <mpi.h>

#include <algorithm>
#include <vector>

#include "core/bandwidth.hpp"
#include "core/decomposition.hpp"
#include "core/timer.hpp"

namespace staghorn {

PerfModel::Prediction PerfModel::predict(double cells_per_rank, double halo_bytes,
                                         int ranks) const {
  Prediction p;
  p.sequential_s = sequential_s;
  const bool travels = ranks > 1 && halo_bytes > 0;
  if (cell_rate <= 0 || (travels && link_bandwidth <= 0)) return p;
  p.compute_s = cells_per_rank / cell_rate;
  p.comm_s = travels ? halo_bytes / link_bandwidth : 0.0;
  p.total_s = (overlap ? std::max(p.compute_s, p.comm_s) : p.compute_s + p.comm_s) + sequential_s;
  p.known = true;
  return p;
}

double halo_bytes(const Grid& grid, Int3 dims, int halo, int fields_per_iteration) {
  return static_cast<double>(Decomposition::halo_cost(grid, dims, halo)) * fields_per_iteration *
         sizeof(real);
}

namespace {

// Seconds per exchange of `bytes` each way with the partner rank (rank ^ 1); the odd rank out
// of an odd count waits at the barriers only.
double time_pairs(const Comm& comm, std::size_t bytes, int repeats) {
  const int partner = comm.rank() ^ 1;
  const bool paired = partner < comm.size();
  std::vector<char> send(std::max<std::size_t>(bytes, 1), 1), recv(send.size());
  const int count = static_cast<int>(send.size());
  auto once = [&] {
    if (paired)
      check_mpi(MPI_Sendrecv(send.data(), count, MPI_BYTE, partner, 71, recv.data(), count,
                             MPI_BYTE, partner, 71, comm.get(), MPI_STATUS_IGNORE),
                "performance model link probe");
  };
  once(), once();  // connections set up, pages touched
  comm.barrier();
  Timer t;
  for (int r = 0; r < repeats; ++r) once();
  return comm.max(paired ? t.seconds() / repeats : 0.0);
}

}  // namespace

double probe_link_bandwidth(const Comm& comm, std::size_t bytes, bool device_link, int repeats) {
  if (comm.size() < 2 || bytes == 0) return 0;
  bytes = std::min<std::size_t>(bytes, std::size_t{1} << 28);  // links saturate long before
  if (device_link) {
    const bool two = comm.root() && cuda_device_count() >= 2;
    const double gbs = two ? peer_bandwidth(0, 1, bytes, /*both_ways=*/true) : 0.0;
    const double shared = comm.max(gbs);  // every rank learns rank 0's result
    if (shared > 0) return shared * 1e9;
  }
  const double seconds = time_pairs(comm, bytes, std::max(repeats, 1));
  return seconds > 0 ? bytes / seconds : 0.0;
}

}  // namespace staghorn
