#pragma once
#include <memory>
#include <string>

#include "core/transport.hpp"

namespace staghorn {

// NCCL, loaded at run time (libnccl.so.2): the build does not depend on it, and a machine without
// it runs the MPI transports. One communicator per run, shared by every HaloExchange.
class NcclLink {
 public:
  // Why NCCL cannot be used by this process (empty when it can): no CUDA backend, no NCCL headers
  // at build time, two ranks of this node on one GPU (NCCL refuses them), or the library does not
  // load. Communicates within the node on the cuda backend (every rank calls it).
  static std::string unavailable(const Comm& comm, const Exec& ex, const std::string& library);
  // Collective over `comm`: every rank calls it, after all of them found NCCL available.
  NcclLink(const Comm& comm, const Exec& ex, const std::string& library);
  ~NcclLink();
  NcclLink(const NcclLink&) = delete;
  NcclLink& operator=(const NcclLink&) = delete;

  std::string version() const;
  std::unique_ptr<Transport> transport(const Exec& ex);

  struct Library;  // the loaded entry points

 private:
  std::unique_ptr<Library> lib_;
  void* comm_ = nullptr;  // ncclComm_t
};

}  // namespace staghorn
