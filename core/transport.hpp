#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "core/comm.hpp"
#include "core/platform.hpp"

namespace staghorn {

// How packed halo segments travel between ranks:
// - mpi: MPI on host memory (the cpu backend's buffers; on a GPU, staged through pinned buffers);
// - mpi-device: device buffers handed to a CUDA-aware MPI (MPIX_Query_cuda_support);
// - nccl: NCCL send/recv queued on the boundary stream, device to device (NVLink/PCIe/network);
// - ipc: peer copies by the copy engines into the neighbours' buffers (CUDA IPC), one node only.
enum class TransportKind { mpi, mpi_device, nccl, ipc };
std::string to_string(TransportKind k);

// One message: `count` reals at `offset` of the send (or receive) buffer, to (from) `peer`.
// The tag names the segment's direction as seen by the sender, so both sides agree on it; so does
// the wave it leaves in (a pipelined exchange sends its segments in waves, each as soon as the
// part of the shell it reads is computed; the sender's wave, also on the receiving side).
struct Message {
  int peer;
  int tag;
  std::size_t offset;
  std::size_t count;
  int wave = 0;
};

struct MessagePlan {
  // Each sorted by wave, then tag: NCCL matches a pair's messages in order.
  std::vector<Message> sends, recvs;
  std::size_t total = 0;  // reals in each buffer
  int waves = 1;
};

// Moves the messages of one exchange. start() is called for each wave in order, once the pack
// kernels of that wave are queued on the boundary lane; finish() returns when work queued next on
// the boundary lane sees the received values. Buffers are in the backend's memory and stay the
// same between calls.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual TransportKind kind() const = 0;
  virtual void start(const MessagePlan& plan, int wave, const real* send, real* recv) = 0;
  // Returns the seconds the host spent blocked (waiting for the transfer).
  virtual double finish(const MessagePlan& plan, const real* send, real* recv) = 0;
  // Called once the work that reads the receive buffer (unpack) is queued on the boundary lane:
  // after it, peers may overwrite that buffer.
  virtual void released() {}
};

// MPI point-to-point on the given buffers (host, or device with a CUDA-aware MPI); blocks.
void mpi_exchange(const Comm& comm, const MessagePlan& plan, const real* send, real* recv);

// The span of the send buffer that wave `wave`'s messages occupy, as {first real, count}
// ({0, 0} for a wave that sends nothing).
std::pair<std::size_t, std::size_t> wave_span(const MessagePlan& plan, int wave);

std::unique_ptr<Transport> make_mpi_transport(const Comm& comm, const Exec& ex);
std::unique_ptr<Transport> make_mpi_device_transport(const Comm& comm, const Exec& ex);
std::unique_ptr<Transport> make_ipc_transport(const Comm& comm, const Exec& ex);
// Why `ipc` cannot run here ("" when it can): it needs the cuda backend, every rank on this
// node, and each rank able to see the others' GPUs. Communicates (every rank calls it).
std::string ipc_unavailable(const Comm& comm, const Exec& ex);

// The first pair of this node's ranks on one GPU ("ranks 0 and 1 of this node share GPU
// 0000:00:06.0"), or "" when each has its own. Collective over the node's ranks (cuda backend).
std::string shared_gpu(const Comm& comm, const Exec& ex);

// True when this MPI library can take device pointers (compiled in and reported at run time).
bool mpi_cuda_aware();

}  // namespace staghorn
