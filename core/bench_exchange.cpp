// bench_exchange N [FIELDS] [REPEATS] [AXIS]: times the halo exchange of an N^3 block per rank
// (ranks side by side along a periodic axis, z unless AXIS is x or y, so each rank sends two N^2
// faces per field) with every transport this machine offers, beside a plain peer copy of the same
// bytes between GPUs 0 and 1 (both directions at once): the link bandwidth the device-to-device
// transports are judged by. Prints the whole exchange (pack, transfer, unpack) and the transfer
// phase alone against that link bandwidth.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/bandwidth.hpp"
#include "core/comm.hpp"
#include "core/decomposition.hpp"
#include "core/error.hpp"
#include "core/field_ops.hpp"
#include "core/halo_exchange.hpp"
#include "core/network.hpp"
#include "core/timer.hpp"

using namespace staghorn;

namespace {

struct Result {
  double seconds;  // per exchange, slowest rank
  double bytes;    // sent per rank per exchange
  std::array<double, kPhases> phases;
};

Result time_exchange(const Comm& comm, Exec ex, const std::string& transport, int n, int nfields,
                     int repeats, int axis) {
  Grid grid;
  grid.n = {n, n, n};
  grid.n[axis] *= comm.size();
  grid.periodic = {false, false, false};
  grid.periodic[axis] = true;
  Int3 dims{1, 1, 1};
  dims[axis] = comm.size();
  const Decomposition dec(grid, comm, dims, 1);
  ex.use_network(std::make_shared<Network>(comm, ex, transport));
  const Layout layout{dec.local_cells(), {1, 1, 1}};
  std::vector<Field> fields;
  std::vector<Field*> ptrs;
  for (int f = 0; f < nfields; ++f) fields.emplace_back("f", Location::cell, layout, ex.backend());
  for (auto& f : fields) fill(ex, f, 1.0), ptrs.push_back(&f);
  HaloExchange halo(dec, layout, ex, /*corners=*/false);
  for (int r = 0; r < 5; ++r) halo.exchange(ptrs);
  ex.synchronize();
  ex.network()->timer().reset();
  comm.barrier();
  Timer t;
  for (int r = 0; r < repeats; ++r) halo.exchange(ptrs);
  ex.synchronize();
  Result res{comm.max(t.seconds()) / repeats, 0, ex.network()->timer().totals()};
  res.bytes = 2.0 * n * n * nfields * sizeof(real) * (comm.size() > 1 ? 1 : 0);
  for (auto& p : res.phases) p = comm.max(p) / repeats;
  if (comm.root())
    std::printf("%-11s %s\n", transport.c_str(), ex.network()->description().c_str());
  return res;
}

}  // namespace

int main(int argc, char** argv) {
  MpiSession mpi(&argc, &argv);
  const Comm comm;
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  const int nfields = argc > 2 ? std::atoi(argv[2]) : 1;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 50;
  const std::string axis_name = argc > 4 ? argv[4] : "z";
  const int axis = axis_name == "x" ? 0 : (axis_name == "y" ? 1 : 2);
  const int devices = cuda_device_count();
  const Exec ex = devices > 0 ? Exec::cuda(comm.node_rank() % devices) : Exec::cpu();
  if (comm.root())
    std::printf("bench_exchange: %d ranks along %c, %d^3 cells and %d field(s) per rank, %s\n",
                comm.size(), "xyz"[axis], n, nfields, ex.description().c_str());
  std::vector<std::pair<std::string, Result>> results;
  for (const char* transport : {"mpi", "mpi-device", "nccl", "ipc"}) {
    try {
      results.emplace_back(transport,
                           time_exchange(comm, ex, transport, n, nfields, repeats, axis));
    } catch (const Error& e) {
      if (comm.root()) std::printf("%-11s unavailable: %s\n", transport, e.what());
    }
  }
  double peer = 0;
  const double bytes = results.empty() ? 0 : results.front().second.bytes;
  if (comm.root() && devices > 1) peer = peer_bandwidth(0, 1, bytes, /*both_ways=*/true);
  comm.barrier();
  if (!comm.root()) return 0;
  std::printf("\nbytes sent per rank per exchange: %.0f (%.2f MB)\n", bytes, bytes / 1e6);
  if (peer > 0) std::printf("peer copy GPU0<->GPU1, same bytes, both ways: %.1f GB/s\n", peer);
  std::printf("%-11s %9s %8s %8s | %9s %8s | per exchange, ms: %s\n", "transport", "ms", "GB/s",
              "of link", "transfer", "of link", "compute pack transfer unpack wait");
  auto of_link = [&](double rate) { return peer > 0 ? 100 * rate / peer : 0.0; };
  for (const auto& [name, r] : results) {
    const double rate = r.bytes / r.seconds / 1e9;
    const double moved = r.bytes / r.phases[static_cast<int>(Phase::transfer)] / 1e9;
    std::printf("%-11s %9.4f %8.1f %7.1f%% | %9.1f %7.1f%% |", name.c_str(), 1e3 * r.seconds, rate,
                of_link(rate), moved, of_link(moved));
    for (double p : r.phases) std::printf(" %.4f", 1e3 * p);
    std::printf("\n");
  }
  return 0;
}
