#pragma once
#include <memory>
#include <string>

#include "core/comm.hpp"
#include "core/phase_timer.hpp"
#include "core/transport.hpp"

namespace staghorn {

class NcclLink;

// How the halos of one run travel, chosen once for all ranks, and the timer of their phases.
// Every HaloExchange of the run takes its transport from here.
class Network {
 public:
  // `requested`: auto, mpi, mpi-device, nccl or ipc. auto takes, on GPUs, CUDA IPC when every rank
  // is on one node, else NCCL when every rank can load it, else a CUDA-aware MPI when the library
  // reports one, else MPI on host memory. Collective:
  // every rank calls it, and every rank throws when a requested transport cannot run somewhere.
  // `per_segment` (exchange.pipeline "segments", the same on every rank): the halo exchanges that
  // hide communication send each segment as soon as the part of the shell it reads is computed,
  // in waves, rather than all once the whole shell is (core/overlap.hpp).
  Network(const Comm& comm, const Exec& ex, const std::string& requested = "auto",
          const std::string& nccl_library = "", bool per_segment = false);
  ~Network();

  TransportKind kind() const { return kind_; }
  bool per_segment() const { return per_segment_; }
  std::string description() const;
  std::unique_ptr<Transport> transport() const;
  PhaseTimer& timer() const { return *timer_; }

 private:
  std::string transport_description() const;

  Comm comm_;
  Exec ex_;
  TransportKind kind_ = TransportKind::mpi;
  bool per_segment_ = false;
  std::shared_ptr<NcclLink> nccl_;
  std::unique_ptr<PhaseTimer> timer_;
};

// The transport names a config may give, "auto" included.
const std::vector<std::string>& transport_choices();

}  // namespace staghorn
