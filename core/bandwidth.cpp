#include "core/bandwidth.hpp"

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "core/host_stream.hpp"
#include "core/memory.hpp"
#include "core/timer.hpp"

#ifdef STAGHORN_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace staghorn {
namespace {

constexpr int kRepeats = 7;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

#ifdef STAGHORN_HAVE_CUDA
double device_copy_seconds(void* dst, const void* src, std::size_t bytes, cudaStream_t s) {
  cudaEvent_t a, b;
  check_cuda(cudaEventCreate(&a), "cudaEventCreate");
  check_cuda(cudaEventCreate(&b), "cudaEventCreate");
  check_cuda(cudaEventRecord(a, s), "cudaEventRecord");
  check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
  check_cuda(cudaEventRecord(b, s), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(b), "cudaEventSynchronize");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms * 1e-3;
}
#endif

}  // namespace

double copy_bandwidth(const Exec& ex, std::size_t bytes) {
  if (!ex.on_device()) return host_stream(bytes).copy_GBs;
  std::vector<double> seconds;
  const std::size_t n = bytes / sizeof(double);
#ifdef STAGHORN_HAVE_CUDA
  Buffer<double> src(Space::device, n), dst(Space::device, n);
  check_cuda(cudaMemset(src.data(), 1, src.bytes()), "cudaMemset");
  cudaStream_t s = ex.stream(Lane::inner);
  device_copy_seconds(dst.data(), src.data(), src.bytes(), s);  // warm-up
  for (int r = 0; r < kRepeats; ++r)
    seconds.push_back(device_copy_seconds(dst.data(), src.data(), src.bytes(), s));
#else
  throw Error("copy_bandwidth: device memory in a build without CUDA");
#endif
  return 2.0 * n * sizeof(double) / median(seconds) / 1e9;
}

#ifdef STAGHORN_HAVE_CUDA
namespace {

// Device memory of `bytes` on `device`, with a stream there; released on scope exit.
struct OnDevice {
  int device;
  void *src = nullptr, *dst = nullptr;
  cudaStream_t stream = nullptr;
  OnDevice(int d, std::size_t bytes) : device(d) {
    check_cuda(cudaSetDevice(d), "cudaSetDevice");
    check_cuda(cudaMalloc(&src, bytes), "cudaMalloc");
    check_cuda(cudaMalloc(&dst, bytes), "cudaMalloc");
    check_cuda(cudaMemset(src, 1, bytes), "cudaMemset");
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~OnDevice() {
    cudaSetDevice(device);
    cudaStreamDestroy(stream);
    cudaFree(src);
    cudaFree(dst);
  }
  void allow_peer(int other) const {
    int can = 0;
    cudaDeviceCanAccessPeer(&can, device, other);
    cudaSetDevice(device);
    if (can && cudaDeviceEnablePeerAccess(other, 0) != cudaSuccess) cudaGetLastError();
  }
};

}  // namespace
#endif

double peer_bandwidth(int a, int b, std::size_t bytes, bool both_ways) {
#ifdef STAGHORN_HAVE_CUDA
  int count = 0, current = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || a >= count || b >= count || a == b) {
    cudaGetLastError();
    return 0;
  }
  cudaGetDevice(&current);
  std::vector<double> seconds;
  {
    OnDevice da(a, bytes), db(b, bytes);
    da.allow_peer(b);
    db.allow_peer(a);
    for (int r = 0; r <= kRepeats; ++r) {  // the first is a warm-up
      Timer t;
      check_cuda(cudaMemcpyPeerAsync(db.dst, b, da.src, a, bytes, da.stream), "peer copy");
      if (both_ways)
        check_cuda(cudaMemcpyPeerAsync(da.dst, a, db.src, b, bytes, db.stream), "peer copy");
      check_cuda(cudaStreamSynchronize(da.stream), "peer copy");
      check_cuda(cudaStreamSynchronize(db.stream), "peer copy");
      if (r > 0) seconds.push_back(t.seconds());
    }
  }
  cudaSetDevice(current);
  return bytes / median(seconds) / 1e9;
#else
  (void)a, (void)b, (void)bytes, (void)both_ways;
  return 0;
#endif
}

}  // namespace staghorn
