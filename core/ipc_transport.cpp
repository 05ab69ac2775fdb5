// CUDA IPC transport: each rank copies its packed segments straight into its neighbours' receive
// buffers with peer copies on the boundary stream (copy engines, no SMs taken from the inner
// region), and tells them by an interprocess event plus a zero-byte MPI token.
#include <mpi.h>

#include <map>

#include "core/error.hpp"
#include "core/side_stream.hpp"
#include "core/timer.hpp"
#include "core/transport.hpp"

#ifdef STAGHORN_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace staghorn {

#ifdef STAGHORN_HAVE_CUDA
namespace {

constexpr int kSentTag = 1, kConsumedTag = 2, kSetupTag = 3;  // and kSetupTag + 1

// What a neighbour shares once per receive buffer: the buffer and its two events.
struct PeerHandles {
  cudaIpcMemHandle_t recv;
  cudaIpcEventHandle_t sent, consumed;
};

struct Peer {
  real* recv = nullptr;  // the neighbour's receive buffer, mapped here
  cudaEvent_t sent = nullptr, consumed = nullptr;
};

// Where each of our messages lands in each neighbour's buffer: peer -> tag -> offset.
using Landing = std::map<int, std::map<int, std::size_t>>;

class IpcTransport final : public Transport {
 public:
  IpcTransport(const Comm& comm, const Exec& ex) : ex_(ex), side_(ex) {
    // Tokens travel on a communicator of their own, so that exchanges cannot mix them up.
    check_mpi(MPI_Comm_dup(comm.get(), &own_), "MPI_Comm_dup (ipc)");
    comm_ = Comm(own_, comm.timeout());
    const unsigned flags = cudaEventDisableTiming | cudaEventInterprocess;
    check_cuda(cudaEventCreateWithFlags(&sent_, flags), "cudaEventCreate (ipc)");
    check_cuda(cudaEventCreateWithFlags(&consumed_, flags), "cudaEventCreate (ipc)");
  }

  ~IpcTransport() override {
    side_.synchronize();  // no copy may outlive the mappings
    cudaStreamSynchronize(ex_.stream(Lane::boundary));
    // Zero-byte sends complete locally; no error may leave a destructor.
    MPI_Waitall(static_cast<int>(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE);
    for (auto& [rank, p] : peers_) close(p);
    cudaEventDestroy(sent_);
    cudaEventDestroy(consumed_);
    MPI_Comm_free(&own_);
  }

  TransportKind kind() const override { return TransportKind::ipc; }

  void start(const MessagePlan& plan, int wave, const real* send, real* recv) override {
    if (wave == 0) {
      // New buffers: map them. Another field count moves the messages' offsets only: they are
      // agreed once per count and kept (a model that alternates counts, as the coupled one's
      // viscosity updates between its iterations do, would otherwise map anew at every exchange).
      if (recv != recv_) map(plan, recv);
      landing_of(plan);
    }
    cudaStream_t s = side_.for_waves(plan.waves);
    // A neighbour's buffer is free once it has unpacked what we sent last time.
    if (wave == 0 && !first_) wait_consumed(s);
    first_ = false;
    const Landing& landing = landing_.at(plan.total);
    for (const auto& m : plan.sends) {
      if (m.wave != wave) continue;
      Peer& p = peers_.at(m.peer);
      check_cuda(cudaMemcpyAsync(p.recv + landing.at(m.peer).at(m.tag), send + m.offset,
                                 m.count * sizeof(real), cudaMemcpyDeviceToDevice, s),
                 "cudaMemcpyAsync (ipc)");
    }
    if (wave + 1 < plan.waves) return;
    check_cuda(cudaEventRecord(sent_, s), "cudaEventRecord (ipc)");
    notify(kSentTag);
  }

  double finish(const MessagePlan&, const real*, real*) override {
    const Timer blocked;
    tokens(kSentTag);  // every neighbour has queued its copies to us and recorded its event
    cudaStream_t s = ex_.stream(Lane::boundary);
    for (auto& [rank, p] : peers_) check_cuda(cudaStreamWaitEvent(s, p.sent, 0), "wait");
    // Our own copies on the side stream (if any) are done before the next pack overwrites the
    // send buffer.
    side_.join_boundary();
    return blocked.seconds();
  }

  void released() override {
    check_cuda(cudaEventRecord(consumed_, ex_.stream(Lane::boundary)), "cudaEventRecord (ipc)");
    notify(kConsumedTag);
  }

 private:
  // The neighbours have unpacked what we sent last (token), and stream `s` waits for it (event).
  void wait_consumed(cudaStream_t s) {
    tokens(kConsumedTag);
    for (auto& [rank, p] : peers_) check_cuda(cudaStreamWaitEvent(s, p.consumed, 0), "wait");
  }

  // Shares the receive buffer and events with every neighbour and maps theirs (collective among
  // neighbours: each calls it at the same exchange, when its buffers are new; the buffers only
  // grow with the field count, which every rank sees in the same order).
  void map(const MessagePlan& plan, real* recv) {
    if (!first_) {
      // The old mappings go: nothing of ours may still be in flight to them, nor theirs in use.
      wait_consumed(ex_.stream(Lane::boundary));
      ex_.synchronize(Lane::boundary);
    }
    drain();
    for (auto& [rank, p] : peers_) close(p);
    peers_.clear();
    landing_.clear();
    recv_ = recv;
    first_ = true;
    PeerHandles mine{};
    check_cuda(cudaIpcGetMemHandle(&mine.recv, recv), "cudaIpcGetMemHandle");
    check_cuda(cudaIpcGetEventHandle(&mine.sent, sent_), "cudaIpcGetEventHandle");
    check_cuda(cudaIpcGetEventHandle(&mine.consumed, consumed_), "cudaIpcGetEventHandle");
    for (const auto& m : plan.recvs) peers_[m.peer];
    neighbours_.clear();
    for (auto& [rank, p] : peers_) neighbours_.push_back(rank);
    incoming_.assign(neighbours_.size(), MPI_REQUEST_NULL);
    std::map<int, PeerHandles> handles;
    std::vector<MPI_Request> reqs(2 * neighbours_.size());
    for (std::size_t n = 0; n < neighbours_.size(); ++n) {
      const int rank = neighbours_[n];
      check_mpi(MPI_Irecv(&handles[rank], sizeof(PeerHandles), MPI_BYTE, rank, kSetupTag, own_,
                          &reqs[2 * n]),
                "MPI_Irecv (ipc)");
      check_mpi(MPI_Isend(&mine, sizeof mine, MPI_BYTE, rank, kSetupTag, own_, &reqs[2 * n + 1]),
                "MPI_Isend (ipc)");
    }
    comm_.wait_all(reqs, "ipc setup", twice(neighbours_));
    for (auto& [rank, p] : peers_) open(p, handles[rank]);
  }

  // Where our messages of this plan land at each neighbour: our receive offsets for each
  // neighbour's messages as (tag, offset) pairs, traded once per plan size (collective among
  // neighbours as map(): every rank meets a new field count at the same exchange, and the field
  // count fixes each rank's plan size).
  const Landing& landing_of(const MessagePlan& plan) {
    const auto known = landing_.find(plan.total);
    if (known != landing_.end()) return known->second;
    std::map<int, std::vector<long long>> ours, theirs;
    for (const auto& m : plan.recvs)
      ours[m.peer].insert(ours[m.peer].end(), {m.tag, (long long)m.offset});
    std::vector<MPI_Request> reqs(2 * neighbours_.size());
    for (std::size_t n = 0; n < neighbours_.size(); ++n) {
      const int rank = neighbours_[n];
      // As many each way: the segments are symmetric.
      theirs[rank].resize(ours[rank].size());
      const int count = static_cast<int>(ours[rank].size());
      check_mpi(MPI_Irecv(theirs[rank].data(), count, MPI_LONG_LONG, rank, kSetupTag + 1, own_,
                          &reqs[2 * n]),
                "MPI_Irecv (ipc)");
      check_mpi(MPI_Isend(ours[rank].data(), count, MPI_LONG_LONG, rank, kSetupTag + 1, own_,
                          &reqs[2 * n + 1]),
                "MPI_Isend (ipc)");
    }
    comm_.wait_all(reqs, "ipc setup", twice(neighbours_));
    Landing& landing = landing_[plan.total];
    for (const auto& [rank, pairs] : theirs)
      for (std::size_t i = 0; i + 1 < pairs.size(); i += 2)
        landing[rank][static_cast<int>(pairs[i])] = static_cast<std::size_t>(pairs[i + 1]);
    return landing;
  }

  // Each rank twice (a receive and a send to it), for wait_all's report of who is late.
  static std::vector<int> twice(const std::vector<int>& ranks) {
    std::vector<int> r;
    for (int rank : ranks) r.insert(r.end(), {rank, rank});
    return r;
  }

  static void open(Peer& p, const PeerHandles& h) {
    void* mapped = nullptr;
    check_cuda(cudaIpcOpenMemHandle(&mapped, h.recv, cudaIpcMemLazyEnablePeerAccess),
               "cudaIpcOpenMemHandle");
    p.recv = static_cast<real*>(mapped);
    check_cuda(cudaIpcOpenEventHandle(&p.sent, h.sent), "cudaIpcOpenEventHandle");
    check_cuda(cudaIpcOpenEventHandle(&p.consumed, h.consumed), "cudaIpcOpenEventHandle");
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
  SideStream side_;  // the copies of a pipelined exchange's waves
  MPI_Comm own_ = MPI_COMM_NULL;
  Comm comm_;  // own_, with the run's timeout
  cudaEvent_t sent_ = nullptr, consumed_ = nullptr;
  real* recv_ = nullptr;
  bool first_ = true;
  std::map<int, Peer> peers_;
  std::map<std::size_t, Landing> landing_;  // by plan size, for the buffers mapped now
  std::vector<int> neighbours_;             // the ranks of peers_, in its order
  std::vector<MPI_Request> incoming_;       // a token from each neighbour (reused every exchange)
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
