#pragma once
#include <cstddef>

#include "core/backend.hpp"
#include "core/comm.hpp"
#include "core/grid.hpp"

namespace staghorn {

// Astaroth's performance model (Pekkila et al. 2022, Eq. 8): the time of one iteration on P ranks
//   t = max(t_compute, t_comm) + t_seq,  t_compute = W / pi,  t_comm = Q / beta,
// W the cells of one rank, pi the measured cell updates per second of one device, Q the halo bytes
// the busiest rank sends per iteration (its receives travel the other way at the same time) and
// beta the link bandwidth per direction. Without communication hiding the two add up instead.
struct PerfModel {
  double cell_rate = 0;       // pi, cell updates / s of one device; <= 0: unknown
  double link_bandwidth = 0;  // beta, bytes / s per direction; <= 0: unknown
  double sequential_s = 0;    // t_seq: per-iteration work no rank count shortens
  bool overlap = true;        // communication hidden behind the inner region

  struct Prediction {
    double compute_s = 0, comm_s = 0, sequential_s = 0, total_s = 0;
    bool known = false;  // false when pi (or beta, where a halo travels) is unknown
  };
  // One iteration of `ranks` ranks, each with `cells_per_rank` cells and `halo_bytes` to send.
  // A single rank exchanges only with itself: that cost is already inside pi.
  Prediction predict(double cells_per_rank, double halo_bytes, int ranks) const;
};

// Q: bytes of the busiest rank's halo per iteration, Decomposition::halo_cost times the fields
// exchanged per iteration times the size of a real.
double halo_bytes(const Grid& grid, Int3 dims, int halo, int fields_per_iteration);

// beta, measured: ranks exchange `bytes` in pairs (0<->1, 2<->3, ...), both ways at once, as a
// halo travels; bytes / s per direction of the slowest pair. `device_link`: a device-to-device
// transport on GPUs that rank 0 can see at least two of: the peer copy GPU 0 <-> GPU 1 instead
// (core/bandwidth.hpp). Collective; 0 on a single rank.
double probe_link_bandwidth(const Comm& comm, std::size_t bytes, bool device_link,
                            int repeats = 10);

}  // namespace staghorn
