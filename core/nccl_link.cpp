#include "core/nccl_link.hpp"

#include "core/error.hpp"
#include "core/side_stream.hpp"

#if defined(STAGHORN_HAVE_CUDA) && __has_include(<nccl.h>)
#define STAGHORN_NCCL 1
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <mpi.h>
#include <nccl.h>
#endif

namespace staghorn {

#ifdef STAGHORN_NCCL

constexpr ncclDataType_t kNcclReal = sizeof(real) == 4 ? ncclFloat32 : ncclFloat64;

// The entry points the exchange uses, looked up in the loaded library by their C names.
struct NcclLink::Library {
  void* handle = nullptr;
  decltype(&ncclGetVersion) get_version = nullptr;
  decltype(&ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&ncclCommInitRank) init_rank = nullptr;
  decltype(&ncclCommDestroy) destroy = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
  decltype(&ncclSend) send = nullptr;
  decltype(&ncclRecv) recv = nullptr;

  // Loads `name` (or, when empty, libnccl.so.2 from the loader's path, then from the CUDA toolkit
  // Staghorn was built with). Returns why it failed, or "".
  std::string load(const std::string& name) {
    std::vector<std::string> tries;
    if (!name.empty()) {
      tries = {name};
    } else {
      tries = {"libnccl.so.2"};
      for (const char* dir : {STAGHORN_CUDA_LIBDIR, "/usr/local/cuda/lib", "/usr/local/cuda/lib64"})
        tries.push_back(std::string(dir) + "/libnccl.so.2");
    }
    std::string errors;
    for (const auto& t : tries) {
      handle = dlopen(t.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle) break;
      errors += (errors.empty() ? "" : "; ") + std::string(dlerror());
    }
    if (!handle) return "cannot load NCCL (" + errors + ")";
    return bind();
  }

  template <class F>
  bool find(F& f, const char* symbol) {
    f = reinterpret_cast<F>(dlsym(handle, symbol));
    return f != nullptr;
  }

  std::string bind() {
    const bool ok = find(get_version, "ncclGetVersion") && find(get_unique_id, "ncclGetUniqueId") &&
                    find(init_rank, "ncclCommInitRank") && find(destroy, "ncclCommDestroy") &&
                    find(error_string, "ncclGetErrorString") &&
                    find(group_start, "ncclGroupStart") && find(group_end, "ncclGroupEnd") &&
                    find(send, "ncclSend") && find(recv, "ncclRecv");
    if (!ok) return "the loaded NCCL lacks point-to-point send/recv (NCCL >= 2.7 needed)";
    return "";
  }

  void check(ncclResult_t r, const char* what) const {
    if (r != ncclSuccess) throw Error(std::string(what) + ": " + error_string(r));
  }

  ~Library() {
    if (handle) dlclose(handle);
  }
};

namespace {

// NCCL send/recv of every message of a wave in one group, queued on the boundary lane (on a side
// stream when the exchange is pipelined, so that the shell's next slab does not wait for the
// group): nothing blocks the host, and the unpack kernels queued after it on the boundary lane see
// the received values. Both sides of a pair post the same waves in the same order.
class NcclTransport final : public Transport {
 public:
  NcclTransport(const NcclLink::Library& lib, ncclComm_t comm, const Exec& ex)
      : lib_(lib), comm_(comm), ex_(ex), side_(ex) {}
  TransportKind kind() const override { return TransportKind::nccl; }

  void start(const MessagePlan& plan, int wave, const real* send, real* recv) override {
    cudaStream_t s = side_.for_waves(plan.waves);
    lib_.check(lib_.group_start(), "ncclGroupStart");
    for (const auto& m : plan.recvs)
      if (m.wave == wave)
        lib_.check(lib_.recv(recv + m.offset, m.count, kNcclReal, m.peer, comm_, s), "ncclRecv");
    for (const auto& m : plan.sends)
      if (m.wave == wave)
        lib_.check(lib_.send(send + m.offset, m.count, kNcclReal, m.peer, comm_, s), "ncclSend");
    lib_.check(lib_.group_end(), "ncclGroupEnd");
  }
  double finish(const MessagePlan&, const real*, real*) override {
    side_.join_boundary();
    return 0;
  }

 private:
  const NcclLink::Library& lib_;
  ncclComm_t comm_;
  Exec ex_;
  SideStream side_;
};

}  // namespace

std::string NcclLink::unavailable(const Comm& comm, const Exec& ex, const std::string& library) {
  if (!ex.on_device()) return "NCCL needs the cuda backend";
  // Before anything a rank may return early on: it communicates.
  const std::string shared = shared_gpu(comm, ex);
  if (!shared.empty()) return "NCCL needs a GPU per rank, and " + shared;
  Library lib;
  return lib.load(library);
}

NcclLink::NcclLink(const Comm& comm, const Exec& ex, const std::string& library)
    : lib_(std::make_unique<Library>()) {
  const std::string why = lib_->load(library);
  if (!why.empty()) throw Error("exchange.transport nccl: " + why);
  ncclUniqueId id{};
  if (comm.root()) lib_->check(lib_->get_unique_id(&id), "ncclGetUniqueId");
  check_mpi(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm.get()), "MPI_Bcast (NCCL id)");
  check_cuda(cudaSetDevice(ex.device()), "cudaSetDevice");
  ncclComm_t c = nullptr;
  lib_->check(lib_->init_rank(&c, comm.size(), id, comm.rank()), "ncclCommInitRank");
  comm_ = c;
}

NcclLink::~NcclLink() {
  if (comm_) lib_->destroy(static_cast<ncclComm_t>(comm_));
}

std::string NcclLink::version() const {
  int v = 0;
  lib_->get_version(&v);
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

std::unique_ptr<Transport> NcclLink::transport(const Exec& ex) {
  return std::make_unique<NcclTransport>(*lib_, static_cast<ncclComm_t>(comm_), ex);
}

#else  // no CUDA backend or no NCCL headers in this build

struct NcclLink::Library {};

std::string NcclLink::unavailable(const Comm&, const Exec& ex, const std::string&) {
  if (!ex.on_device()) return "NCCL needs the cuda backend";
  return "this build has no NCCL support (nccl.h was not found)";
}

NcclLink::NcclLink(const Comm& comm, const Exec& ex, const std::string& library) {
  throw Error("exchange.transport nccl: " + unavailable(comm, ex, library));
}

NcclLink::~NcclLink() = default;
std::string NcclLink::version() const { return ""; }
std::unique_ptr<Transport> NcclLink::transport(const Exec&) { return nullptr; }

#endif

}  // namespace staghorn
