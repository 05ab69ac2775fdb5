// CUDA IPC transport: each rank copies its packed segments straight into its neighbours' receive
// buffers with peer copies on the boundary stream (copy engines, no SMs taken from the inner
// region), and tells them by an interprocess event plus a zero-byte MPI token.
#include <mpi.h>

#include <map>

#include "core/error.hpp"
#include "core/timer.hpp"
#include "core/transport.hpp"

#ifdef STAGHORN_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace staghorn {

#ifdef STAGHORN_HAVE_CUDA
namespace {

constexpr int kSentTag = 1, kConsumedTag = 2, kSetupTag = 3;  // and kSetupTag + 1

// What a neighbour shares once: its receive buffer, its two events, and where in its buffer each
// of our messages (by tag) goes.
struct PeerHandles {
  cudaIpcMemHandle_t recv;
  cudaIpcEventHandle_t sent, consumed;
};

struct Peer {
  real* recv = nullptr;  // the neighbour's receive buffer, mapped here
  cudaEvent_t sent = nullptr, consumed = nullptr;
  std::map<int, std::size_t> offset_of_tag;  // where our message with this tag lands there
};

class IpcTransport final : public Transport {
 public:
  IpcTransport(const Comm& comm, const Exec& ex) : ex_(ex) {
    // Tokens travel on a communicator of their own, so that exchanges cannot mix them up.
    check_mpi(MPI_Comm_dup(comm.get(), &own_), "MPI_Comm_dup (ipc)");
    comm_ = Comm(own_, comm.timeout());
    const unsigned flags = cudaEventDisableTiming | cudaEventInterprocess;
    check_cuda(cudaEventCreateWithFlags(&sent_, flags), "cudaEventCreate (ipc)");
    check_cuda(cudaEventCreateWithFlags(&consumed_, flags), "cudaEventCreate (ipc)");
  }

  ~IpcTransport() override {
    cudaStreamSynchronize(ex_.stream(Lane::boundary));  // no copy may outlive the mappings
    // Zero-byte sends complete locally; no error may leave a destructor.
    MPI_Waitall(static_cast<int>(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE);
    for (auto& [rank, p] : peers_) close(p);
    cudaEventDestroy(sent_);
    cudaEventDestroy(consumed_);
    MPI_Comm_free(&own_);
  }

  TransportKind kind() const override { return TransportKind::ipc; }

  void start(const MessagePlan& plan, const real* send, real* recv) override {
    // New buffers, or another field count (the offsets move): map and agree again.
    if (recv != recv_ || plan.total != total_) setup(plan, recv);
    cudaStream_t s = ex_.stream(Lane::boundary);
    // A neighbour's buffer is free once it has unpacked what we sent last time.
    if (!first_) wait_consumed();
    first_ = false;
    for (const auto& m : plan.sends) {
      Peer& p = peers_.at(m.peer);
      check_cuda(cudaMemcpyAsync(p.recv + p.offset_of_tag.at(m.tag), send + m.offset,
                                 m.count * sizeof(real), cudaMemcpyDeviceToDevice, s),
                 "cudaMemcpyAsync (ipc)");
    }
    check_cuda(cudaEventRecord(sent_, s), "cudaEventRecord (ipc)");
    notify(kSentTag);
  }

  double finish(const MessagePlan&, const real*, real*) override {
    const Timer blocked;
    tokens(kSentTag);  // every neighbour has queued its copies to us and recorded its event
    cudaStream_t s = ex_.stream(Lane::boundary);
    for (auto& [rank, p] : peers_) check_cuda(cudaStreamWaitEvent(s, p.sent, 0), "wait");
    return blocked.seconds();
  }

  void released() override {
    check_cuda(cudaEventRecord(consumed_, ex_.stream(Lane::boundary)), "cudaEventRecord (ipc)");
    notify(kConsumedTag);
  }

 private:
  // Shares handles and receive offsets with every neighbour (collective among neighbours: each
  // calls it at the same exchange, when its buffers are new).
  // The neighbours have unpacked what we sent last (token), and our stream waits for it (event).
  void wait_consumed() {
    tokens(kConsumedTag);
    cudaStream_t s = ex_.stream(Lane::boundary);
    for (auto& [rank, p] : peers_) check_cuda(cudaStreamWaitEvent(s, p.consumed, 0), "wait");
  }

  void setup(const MessagePlan& plan, real* recv) {
    if (!first_) {
      // The old mappings go: nothing of ours may still be in flight to them, nor theirs in use.
      wait_consumed();
      ex_.synchronize(Lane::boundary);
    }
    drain();
    for (auto& [rank, p] : peers_) close(p);
    peers_.clear();
    recv_ = recv;
    total_ = plan.total;
    first_ = true;
    PeerHandles mine{};
    check_cuda(cudaIpcGetMemHandle(&mine.recv, recv), "cudaIpcGetMemHandle");
    check_cuda(cudaIpcGetEventHandle(&mine.sent, sent_), "cudaIpcGetEventHandle");
    check_cuda(cudaIpcGetEventHandle(&mine.consumed, consumed_), "cudaIpcGetEventHandle");
    for (const auto& m : plan.recvs) peers_[m.peer];
    neighbours_.clear();
    for (auto& [rank, p] : peers_) neighbours_.push_back(rank);
    incoming_.assign(neighbours_.size(), MPI_REQUEST_NULL);
    // Per neighbour: its handles, and our receive offsets for its messages as (tag, offset)
    // pairs (as many each way: the segments are symmetric). Nonblocking, in any order.
    std::map<int, PeerHandles> handles;
    std::map<int, std::vector<long long>> ours, theirs;
    std::vector<MPI_Request> reqs;
    std::vector<int> peers;
    for (auto& [rank, p] : peers_) {
      for (const auto& m : plan.recvs)
        if (m.peer == rank) ours[rank].insert(ours[rank].end(), {m.tag, (long long)m.offset});
      theirs[rank].resize(ours[rank].size());
      reqs.resize(reqs.size() + 4);
      peers.insert(peers.end(), 4, rank);
      MPI_Request* r = &reqs[reqs.size() - 4];
      const int n = static_cast<int>(ours[rank].size());
      check_mpi(MPI_Irecv(&handles[rank], sizeof(PeerHandles), MPI_BYTE, rank, kSetupTag, own_, r),
                "MPI_Irecv (ipc)");
      check_mpi(MPI_Isend(&mine, sizeof mine, MPI_BYTE, rank, kSetupTag, own_, r + 1),
                "MPI_Isend (ipc)");
      check_mpi(MPI_Irecv(theirs[rank].data(), n, MPI_LONG_LONG, rank, kSetupTag + 1, own_, r + 2),
                "MPI_Irecv (ipc)");
      check_mpi(MPI_Isend(ours[rank].data(), n, MPI_LONG_LONG, rank, kSetupTag + 1, own_, r + 3),
                "MPI_Isend (ipc)");
    }
    comm_.wait_all(reqs, "ipc setup", peers);
    for (auto& [rank, p] : peers_) open(p, handles[rank], theirs[rank]);
  }

  static void open(Peer& p, const PeerHandles& h, const std::vector<long long>& offsets) {
    void* mapped = nullptr;
    check_cuda(cudaIpcOpenMemHandle(&mapped, h.recv, cudaIpcMemLazyEnablePeerAccess),
               "cudaIpcOpenMemHandle");
    p.recv = static_cast<real*>(mapped);
    check_cuda(cudaIpcOpenEventHandle(&p.sent, h.sent), "cudaIpcOpenEventHandle");
    check_cuda(cudaIpcOpenEventHandle(&p.consumed, h.consumed), "cudaIpcOpenEventHandle");
    for (std::size_t i = 0; i + 1 < offsets.size(); i += 2)
      p.offset_of_tag[static_cast<int>(offsets[i])] = static_cast<std::size_t>(offsets[i + 1]);
  }

  void notify(int tag) {
    for (auto& [rank, p] : peers_) {
      pending_.emplace_back();
      check_mpi(MPI_Isend(nullptr, 0, MPI_BYTE, rank, tag, own_, &pending_.back()), "MPI_Isend");
    }
  }

  void tokens(int tag) {
    for (std::size_t n = 0; n < neighbours_.size(); ++n)
      check_mpi(MPI_Irecv(nullptr, 0, MPI_BYTE, neighbours_[n], tag, own_, &incoming_[n]),
                "MPI_Irecv (ipc token)");
    comm_.wait_all(incoming_, "ipc tokens", neighbours_);
    drain();
  }

  void drain() {
    if (pending_.empty()) return;
    comm_.wait_all(pending_, "ipc tokens");
    pending_.clear();
  }

  static void close(Peer& p) {
    if (p.recv) cudaIpcCloseMemHandle(p.recv);
    if (p.sent) cudaEventDestroy(p.sent);
    if (p.consumed) cudaEventDestroy(p.consumed);
  }

  Exec ex_;
  MPI_Comm own_ = MPI_COMM_NULL;
  Comm comm_;  // own_, with the run's timeout
  cudaEvent_t sent_ = nullptr, consumed_ = nullptr;
  real* recv_ = nullptr;
  std::size_t total_ = 0;
  bool first_ = true;
  std::map<int, Peer> peers_;
  std::vector<int> neighbours_;        // the ranks of peers_, in its order
  std::vector<MPI_Request> incoming_;  // a token from each neighbour (reused every exchange)
  std::vector<MPI_Request> pending_;
};

}  // namespace

std::unique_ptr<Transport> make_ipc_transport(const Comm& comm, const Exec& ex) {
  return std::make_unique<IpcTransport>(comm, ex);
}
#else
std::unique_ptr<Transport> make_ipc_transport(const Comm&, const Exec&) {
  throw Error("exchange.transport ipc: this build has no CUDA backend");
}
#endif

std::string ipc_unavailable(const Comm& comm, const Exec& ex) {
  if (!ex.on_device()) return "ipc needs the cuda backend";
  const NodeComm node(comm);
  if (node.size() != comm.size()) return "ipc needs every rank on one node";
  // Each rank maps its neighbours' memory, so it must see their GPUs (not so under
  // --gpus-per-task=1 or a CUDA_VISIBLE_DEVICES per rank). Ranks may share a GPU.
  const std::vector<std::string> ids = node.all(gpu_bus_id(ex.device()));
  for (std::size_t r = 0; r < ids.size(); ++r)
    if (!gpu_visible(ids[r]))
      return "ipc needs each rank to see the GPUs of the others, and rank " +
             std::to_string(comm.rank()) + " does not see rank " + std::to_string(r) + "'s GPU " +
             ids[r];
  return "";
}

}  // namespace staghorn
