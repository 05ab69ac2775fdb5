#include "core/network.hpp"

#include "core/error.hpp"
#include "core/nccl_link.hpp"

namespace staghorn {
namespace {

// Why this rank cannot use `kind` ("" when it can); local, does not communicate.
std::string unavailable(const Comm& comm, TransportKind kind, const Exec& ex,
                        const std::string& nccl_library) {
  switch (kind) {
    case TransportKind::ipc:
      return ipc_unavailable(comm, ex);
    case TransportKind::mpi:
      return "";
    case TransportKind::mpi_device:
      if (!ex.on_device()) return "mpi-device needs the cuda backend";
      return mpi_cuda_aware() ? "" : "this MPI library does not report CUDA support";
    case TransportKind::nccl:
      return NcclLink::unavailable(comm, ex, nccl_library);
  }
  return "unknown transport";
}

TransportKind parse(const std::string& name) {
  if (name == "mpi") return TransportKind::mpi;
  if (name == "mpi-device") return TransportKind::mpi_device;
  if (name == "nccl") return TransportKind::nccl;
  if (name == "ipc") return TransportKind::ipc;
  throw Error("exchange.transport: unknown transport \"" + name +
              "\" (auto, mpi, mpi-device, nccl or ipc)");
}

// True when `kind` works on every rank; when `required`, throws on every rank otherwise.
bool usable_everywhere(const Comm& comm, TransportKind kind, const Exec& ex,
                       const std::string& nccl_library, bool required) {
  const std::string why = unavailable(comm, kind, ex, nccl_library);
  const int first = comm.first_failure(!why.empty());
  if (first < 0) return true;
  if (!required) return false;
  const std::string name = to_string(kind);
  if (!why.empty()) throw Error("exchange.transport " + name + ": " + why);
  throw Error("exchange.transport " + name + ": rank " + std::to_string(first) +
              " cannot use it (see its message)");
}

}  // namespace

const std::vector<std::string>& transport_choices() {
  static const std::vector<std::string> names{"auto", "mpi", "mpi-device", "nccl", "ipc"};
  return names;
}

Network::Network(const Comm& comm, const Exec& ex, const std::string& requested,
                 const std::string& nccl_library, bool per_segment)
    : comm_(comm), ex_(ex), per_segment_(per_segment), timer_(std::make_unique<PhaseTimer>(ex)) {
  if (requested == "auto") {
    kind_ = TransportKind::mpi;
    // Device-to-device only pays where there are GPUs and peers to reach, each on a GPU of its
    // own: ranks that share a GPU time-slice it, and a transfer ordered across their contexts
    // (ipc's events, NCCL) waits for context switches where host-staged MPI does not (ipc ran
    // 11x slower than mpi on 2 ranks of one H100 at 64^3).
    if (ex.on_device() && comm.size() > 1 && shared_gpu(comm, ex).empty()) {
      // Copy engines first: they move the halo without taking SMs from the inner region.
      if (usable_everywhere(comm, TransportKind::ipc, ex, nccl_library, false))
        kind_ = TransportKind::ipc;
      else if (usable_everywhere(comm, TransportKind::nccl, ex, nccl_library, false))
        kind_ = TransportKind::nccl;
      else if (usable_everywhere(comm, TransportKind::mpi_device, ex, nccl_library, false))
        kind_ = TransportKind::mpi_device;
    }
  } else {
    kind_ = parse(requested);
    usable_everywhere(comm, kind_, ex, nccl_library, true);
  }
  if (kind_ == TransportKind::nccl) nccl_ = std::make_shared<NcclLink>(comm, ex, nccl_library);
}

Network::~Network() = default;

std::string Network::description() const {
  return transport_description() + (per_segment_ ? ", segment by segment" : "");
}

std::string Network::transport_description() const {
  switch (kind_) {
    case TransportKind::mpi:
      return ex_.on_device() ? "mpi (staged through pinned host memory)" : "mpi (host memory)";
    case TransportKind::mpi_device:
      return "mpi-device (CUDA-aware MPI on device buffers)";
    case TransportKind::nccl:
      return "nccl " + nccl_->version() + " (device to device on the boundary stream)";
    case TransportKind::ipc:
      return "ipc (CUDA IPC peer copies on the boundary stream)";
  }
  return "?";
}

std::unique_ptr<Transport> Network::transport() const {
  switch (kind_) {
    case TransportKind::mpi_device:
      return make_mpi_device_transport(comm_, ex_);
    case TransportKind::nccl:
      return nccl_->transport(ex_);
    case TransportKind::ipc:
      return make_ipc_transport(comm_, ex_);
    default:
      return make_mpi_transport(comm_, ex_);
  }
}

}  // namespace staghorn
