#include "core/backend.hpp"

#include <omp.h>

#include "core/error.hpp"

#ifdef STAGHORN_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace staghorn {

std::string to_string(Backend b) { return b == Backend::cuda ? "cuda" : "cpu"; }

bool cuda_compiled() {
#ifdef STAGHORN_HAVE_CUDA
  return true;
#else
  return false;
#endif
}

int cuda_device_count() {
#ifdef STAGHORN_HAVE_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: not an error for "auto"
    return 0;
  }
  return count;
#else
  return 0;
#endif
}

std::string gpu_bus_id(int device) {
#ifdef STAGHORN_HAVE_CUDA
  char id[64] = {};
  check_cuda(cudaDeviceGetPCIBusId(id, sizeof id, device), "cudaDeviceGetPCIBusId");
  return id;
#else
  (void)device;
  throw Error("gpu_bus_id: this build has no CUDA backend");
#endif
}

bool gpu_visible(const std::string& bus_id) {
#ifdef STAGHORN_HAVE_CUDA
  int device = -1;
  if (cudaDeviceGetByPCIBusId(&device, bus_id.c_str()) == cudaSuccess) return true;
  cudaGetLastError();
#else
  (void)bus_id;
#endif
  return false;
}

Backend parse_backend(const std::string& name) {
  if (name == "cpu") return Backend::cpu;
  if (name == "cuda") {
    if (!cuda_compiled()) throw Error("backend \"cuda\": this build has no CUDA backend");
    if (cuda_device_count() == 0) throw Error("backend \"cuda\": no CUDA device is visible");
    return Backend::cuda;
  }
  if (name == "auto") return cuda_device_count() > 0 ? Backend::cuda : Backend::cpu;
  throw Error("backend: unknown backend \"" + name + "\" (cpu, cuda or auto)");
}

void check_cuda(int code, const char* what) {
#ifdef STAGHORN_HAVE_CUDA
  if (code != 0)
    throw Error(std::string(what) + ": " + cudaGetErrorString(static_cast<cudaError_t>(code)));
#else
  if (code != 0) throw Error(std::string(what) + ": CUDA error " + std::to_string(code));
#endif
}

void check_launch(const char* what) {
#ifdef STAGHORN_HAVE_CUDA
  check_cuda(cudaGetLastError(), what);
#else
  (void)what;
#endif
}

struct Exec::Streams {
#ifdef STAGHORN_HAVE_CUDA
  cudaStream_t inner = nullptr, boundary = nullptr;
  cudaEvent_t ordering = nullptr;  // reused by order(): streams wait on it in issue order
  real* scratch = nullptr;
  std::size_t scratch_count = 0;
  explicit Streams(int device) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    int least = 0, greatest = 0;
    check_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "stream priorities");
    check_cuda(cudaStreamCreateWithPriority(&inner, cudaStreamNonBlocking, least), "stream");
    check_cuda(cudaStreamCreateWithPriority(&boundary, cudaStreamNonBlocking, greatest), "stream");
    check_cuda(cudaEventCreateWithFlags(&ordering, cudaEventDisableTiming), "cudaEventCreate");
  }
  ~Streams() {
    cudaFree(scratch);
    cudaEventDestroy(ordering);
    cudaStreamDestroy(inner);
    cudaStreamDestroy(boundary);
  }
#endif
};

Exec Exec::cpu() { return Exec{}; }

Exec Exec::cuda(int device) {
#ifdef STAGHORN_HAVE_CUDA
  Exec e;
  e.backend_ = Backend::cuda;
  e.device_ = device;
  e.streams_ = std::make_shared<Streams>(device);
  return e;
#else
  (void)device;
  throw Error("backend \"cuda\": this build has no CUDA backend");
#endif
}

CUstream_st* Exec::stream(Lane lane) const {
#ifdef STAGHORN_HAVE_CUDA
  if (streams_) return lane == Lane::boundary ? streams_->boundary : streams_->inner;
#endif
  (void)lane;
  return nullptr;
}

void Exec::synchronize() const {
#ifdef STAGHORN_HAVE_CUDA
  if (streams_) {
    check_cuda(cudaStreamSynchronize(streams_->boundary), "boundary stream");
    check_cuda(cudaStreamSynchronize(streams_->inner), "inner stream");
  }
#endif
}

void Exec::synchronize(Lane lane) const {
#ifdef STAGHORN_HAVE_CUDA
  if (streams_) check_cuda(cudaStreamSynchronize(stream(lane)), "stream synchronize");
#else
  (void)lane;
#endif
}

void Exec::order(Lane earlier, Lane later) const {
#ifdef STAGHORN_HAVE_CUDA
  if (!streams_ || earlier == later) return;
  // The wait captures the event's state when issued, so one event serves every call.
  check_cuda(cudaEventRecord(streams_->ordering, stream(earlier)), "cudaEventRecord");
  check_cuda(cudaStreamWaitEvent(stream(later), streams_->ordering, 0), "cudaStreamWaitEvent");
#else
  (void)earlier, (void)later;
#endif
}

real* Exec::scratch(std::size_t count) const {
#ifdef STAGHORN_HAVE_CUDA
  if (!streams_) throw Error("device scratch requested on the cpu backend");
  if (streams_->scratch_count < count) {
    check_cuda(cudaStreamSynchronize(streams_->inner), "inner stream");
    cudaFree(streams_->scratch);
    streams_->scratch = nullptr;
    check_cuda(cudaMalloc(&streams_->scratch, count * sizeof(real)), "cudaMalloc (scratch)");
    streams_->scratch_count = count;
  }
  return streams_->scratch;
#else
  (void)count;
  throw Error("device scratch requested in a build without CUDA");
#endif
}

std::string Exec::description() const {
#ifdef STAGHORN_HAVE_CUDA
  if (backend_ == Backend::cuda) {
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, device_);
    return std::string("cuda device ") + std::to_string(device_) + " (" + p.name + ")";
  }
#endif
  return "cpu (" + std::to_string(omp_get_max_threads()) + " OpenMP threads)";
}

}  // namespace staghorn
