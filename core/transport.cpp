#include "core/transport.hpp"

#include <mpi.h>

#include "core/memory.hpp"
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

void mpi_exchange(const Comm& comm, const MessagePlan& plan, const real* send, real* recv) {
  std::vector<MPI_Request> reqs(plan.sends.size() + plan.recvs.size());
  std::vector<int> peers;
  std::size_t r = 0;
  for (const auto& m : plan.recvs) {
    check_mpi(MPI_Irecv(recv + m.offset, static_cast<int>(m.count), mpi_real(), m.peer, m.tag,
                        comm.get(), &reqs[r++]),
              "MPI_Irecv (halo)");
    peers.push_back(m.peer);
  }
  for (const auto& m : plan.sends) {
    check_mpi(MPI_Isend(send + m.offset, static_cast<int>(m.count), mpi_real(), m.peer, m.tag,
                        comm.get(), &reqs[r++]),
              "MPI_Isend (halo)");
    peers.push_back(m.peer);
  }
  comm.wait_all(reqs, "halo exchange", peers);
}

namespace {

// MPI on host memory. On a GPU the packed buffer goes to pinned memory on the boundary lane in
// start() (asynchronously, so the inner region is queued meanwhile), and back in finish().
class HostMpi final : public Transport {
 public:
  HostMpi(const Comm& comm, const Exec& ex) : comm_(comm), ex_(ex) {}
  TransportKind kind() const override { return TransportKind::mpi; }

  void start(const MessagePlan& plan, const real* send, real*) override {
    if (!ex_.on_device()) return;
    if (host_send_.size() < plan.total) {
      host_send_ = Buffer<real>(Space::pinned, plan.total);
      host_recv_ = Buffer<real>(Space::pinned, plan.total);
    }
    copy_bytes(host_send_.data(), send, plan.total * sizeof(real), ex_.stream(Lane::boundary));
  }

  double finish(const MessagePlan& plan, const real* send, real* recv) override {
    const Timer blocked;
    if (!ex_.on_device()) {
      mpi_exchange(comm_, plan, send, recv);
      return blocked.seconds();
    }
    ex_.synchronize(Lane::boundary);  // the staged send buffer is complete
    mpi_exchange(comm_, plan, host_send_.data(), host_recv_.data());
    const double seconds = blocked.seconds();
    copy_bytes(recv, host_recv_.data(), plan.total * sizeof(real), ex_.stream(Lane::boundary));
    return seconds;
  }

 private:
  Comm comm_;
  Exec ex_;
  Buffer<real> host_send_, host_recv_;
};

// Device buffers straight into a CUDA-aware MPI.
class DeviceMpi final : public Transport {
 public:
  DeviceMpi(const Comm& comm, const Exec& ex) : comm_(comm), ex_(ex) {}
  TransportKind kind() const override { return TransportKind::mpi_device; }
  void start(const MessagePlan&, const real*, real*) override {}
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
