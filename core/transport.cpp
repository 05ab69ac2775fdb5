#include "core/transport.hpp"

#include <mpi.h>

#include <algorithm>

#include "core/memory.hpp"
#include "core/side_stream.hpp"
#include "core/timer.hpp"

#if defined(OPEN_MPI) && __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace staghorn {

std::string to_string(TransportKind k) {
  switch (k) {
    case TransportKind::mpi:
      return "mpi";
    case TransportKind::mpi_device:
      return "mpi-device";
    case TransportKind::nccl:
      return "nccl";
    case TransportKind::ipc:
      return "ipc";
  }
  return "?";
}

bool mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

std::string shared_gpu(const Comm& comm, const Exec& ex) {
  const std::vector<std::string> ids = NodeComm(comm).all(gpu_bus_id(ex.device()));
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t j = i + 1; j < ids.size(); ++j)
      if (ids[i] == ids[j])
        return "ranks " + std::to_string(i) + " and " + std::to_string(j) +
               " of this node share GPU " + ids[i];
  return "";
}

namespace {

// Nonblocking MPI on one plan's buffers: the receives posted at once, the sends wave by wave, all
// awaited together.
class PostedMessages {
 public:
  void receive(const Comm& comm, const MessagePlan& plan, real* recv) {
    for (const auto& m : plan.recvs) {
      reqs_.emplace_back();
      check_mpi(MPI_Irecv(recv + m.offset, static_cast<int>(m.count), mpi_real(), m.peer, m.tag,
                          comm.get(), &reqs_.back()),
                "MPI_Irecv (halo)");
      peers_.push_back(m.peer);
    }
  }

  void send(const Comm& comm, const MessagePlan& plan, int wave, const real* buffer) {
    for (const auto& m : plan.sends) {
      if (m.wave != wave) continue;
      reqs_.emplace_back();
      check_mpi(MPI_Isend(buffer + m.offset, static_cast<int>(m.count), mpi_real(), m.peer, m.tag,
                          comm.get(), &reqs_.back()),
                "MPI_Isend (halo)");
      peers_.push_back(m.peer);
    }
  }

  void wait(const Comm& comm) {
    comm.wait_all(reqs_, "halo exchange", peers_);
    reqs_.clear();
    peers_.clear();
  }

 private:
  std::vector<MPI_Request> reqs_;
  std::vector<int> peers_;  // whom each request waits on, for the report of who is late
};

}  // namespace

void mpi_exchange(const Comm& comm, const MessagePlan& plan, const real* send, real* recv) {
  PostedMessages posted;
  posted.receive(comm, plan, recv);
  for (int w = 0; w < plan.waves; ++w) posted.send(comm, plan, w, send);
  posted.wait(comm);
}

std::pair<std::size_t, std::size_t> wave_span(const MessagePlan& plan, int wave) {
  std::size_t first = plan.total, last = 0;
  for (const auto& m : plan.sends)
    if (m.wave == wave) {
      first = std::min(first, m.offset);
      last = std::max(last, m.offset + m.count);
    }
  if (last <= first) return {0, 0};
  return {first, last - first};
}

namespace {

// MPI on host memory. On the CPU the messages are posted as each wave is packed and awaited in
// finish(). On a GPU the packed buffer goes to pinned memory wave by wave in start()
// (asynchronously, so the inner region is queued meanwhile), the messages travel in finish(), and
// what arrived goes back to the device.
class HostMpi final : public Transport {
 public:
  HostMpi(const Comm& comm, const Exec& ex) : comm_(comm), ex_(ex), side_(ex) {}
  TransportKind kind() const override { return TransportKind::mpi; }

  void start(const MessagePlan& plan, int wave, const real* send, real* recv) override {
    if (!ex_.on_device()) {
      if (wave == 0) posted_.receive(comm_, plan, recv);
      posted_.send(comm_, plan, wave, send);
      return;
    }
    if (host_send_.size() < plan.total) {
      host_send_ = Buffer<real>(Space::pinned, plan.total);
      host_recv_ = Buffer<real>(Space::pinned, plan.total);
    }
    const auto [first, count] = wave_span(plan, wave);
    if (count == 0) return;
    copy_bytes(host_send_.data() + first, send + first, count * sizeof(real),
               side_.for_waves(plan.waves));
  }

  double finish(const MessagePlan& plan, const real*, real* recv) override {
    const Timer blocked;
    if (!ex_.on_device()) {
      posted_.wait(comm_);
      return blocked.seconds();
    }
    side_.join_boundary();
    ex_.synchronize(Lane::boundary);  // the staged send buffer is complete
    mpi_exchange(comm_, plan, host_send_.data(), host_recv_.data());
    const double seconds = blocked.seconds();
    copy_bytes(recv, host_recv_.data(), plan.total * sizeof(real), ex_.stream(Lane::boundary));
    return seconds;
  }

 private:
  Comm comm_;
  Exec ex_;
  SideStream side_;
  PostedMessages posted_;
  Buffer<real> host_send_, host_recv_;
};

// Device buffers straight into a CUDA-aware MPI, all waves at once in finish(): posting a wave
// early would need the host to wait for its pack, holding the next slab's launch.
class DeviceMpi final : public Transport {
 public:
  DeviceMpi(const Comm& comm, const Exec& ex) : comm_(comm), ex_(ex) {}
  TransportKind kind() const override { return TransportKind::mpi_device; }
  void start(const MessagePlan&, int, const real*, real*) override {}
  double finish(const MessagePlan& plan, const real* send, real* recv) override {
    const Timer blocked;
    ex_.synchronize(Lane::boundary);  // packed
    mpi_exchange(comm_, plan, send, recv);
    return blocked.seconds();
  }

 private:
  Comm comm_;
  Exec ex_;
};

}  // namespace

std::unique_ptr<Transport> make_mpi_transport(const Comm& comm, const Exec& ex) {
  return std::make_unique<HostMpi>(comm, ex);
}

std::unique_ptr<Transport> make_mpi_device_transport(const Comm& comm, const Exec& ex) {
  return std::make_unique<DeviceMpi>(comm, ex);
}

}  // namespace staghorn
