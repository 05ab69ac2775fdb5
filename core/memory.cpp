#include "core/memory.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "core/error.hpp"

#ifdef STAGHORN_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace staghorn {

void* allocate_bytes(Space space, std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* p = nullptr;
  switch (space) {
    case Space::host: {
      const std::size_t rounded = (bytes + 63) / 64 * 64;  // aligned_alloc wants a multiple
      p = std::aligned_alloc(64, rounded);
      break;
    }
#ifdef STAGHORN_HAVE_CUDA
    case Space::pinned:
      check_cuda(cudaMallocHost(&p, bytes), "cudaMallocHost");
      break;
    case Space::device:
      check_cuda(cudaMalloc(&p, bytes), "cudaMalloc");
      break;
#else
    case Space::pinned:
      p = std::malloc(bytes);
      break;
    case Space::device:
      throw Error("device memory requested in a build without CUDA");
#endif
  }
  if (!p) throw Error("out of memory allocating " + std::to_string(bytes) + " bytes");
  return p;
}

void release_bytes(Space space, void* p) noexcept {
  if (!p) return;
#ifdef STAGHORN_HAVE_CUDA
  if (space == Space::device) return (void)cudaFree(p);
  if (space == Space::pinned) return (void)cudaFreeHost(p);
#else
  (void)space;
#endif
  std::free(p);
}

void copy_bytes(void* dst, const void* src, std::size_t bytes, CUstream_st* stream) {
  if (bytes == 0) return;
#ifdef STAGHORN_HAVE_CUDA
  if (stream) {
    check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream), "cudaMemcpyAsync");
    return;
  }
  cudaPointerAttributes a{}, b{};
  const bool dev =
      (cudaPointerGetAttributes(&a, dst) == cudaSuccess && a.type == cudaMemoryTypeDevice) ||
      (cudaPointerGetAttributes(&b, src) == cudaSuccess && b.type == cudaMemoryTypeDevice);
  cudaGetLastError();
  if (dev) {
    // Kernels run on non-blocking streams that a plain cudaMemcpy does not wait for, before the
    // copy or after it: from pageable host memory cudaMemcpy may return before the data reach the
    // device, and a kernel launched next on such a stream then reads the old values.
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    check_cuda(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    return;
  }
#else
  (void)stream;
#endif
  std::memcpy(dst, src, bytes);
}

void zero_bytes(Space space, void* p, std::size_t bytes) {
  if (bytes == 0) return;
#ifdef STAGHORN_HAVE_CUDA
  if (space == Space::device) {
    check_cuda(cudaMemset(p, 0, bytes), "cudaMemset");
    // Kernels run on non-blocking streams, which do not wait for the legacy default stream.
    check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    return;
  }
#endif
  (void)space;
  auto* b = static_cast<unsigned char*>(p);
  const long long chunks = static_cast<long long>((bytes + 4095) / 4096);
#pragma omp parallel for schedule(static)
  for (long long c = 0; c < chunks; ++c) {
    const std::size_t begin = static_cast<std::size_t>(c) * 4096;
    std::memset(b + begin, 0, std::min<std::size_t>(4096, bytes - begin));
  }
}

void zero_bytes_async(Space space, void* p, std::size_t bytes, CUstream_st* stream) {
  if (bytes == 0) return;
#ifdef STAGHORN_HAVE_CUDA
  if (space == Space::device) {
    check_cuda(cudaMemsetAsync(p, 0, bytes, stream), "cudaMemsetAsync");
    return;
  }
#endif
  (void)space, (void)stream;
  std::memset(p, 0, bytes);
}

double available_bytes(Space space) {
#ifdef STAGHORN_HAVE_CUDA
  if (space == Space::device) {
    std::size_t free = 0, total = 0;
    check_cuda(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    return static_cast<double>(free);
  }
#endif
  (void)space;
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:") return kib * 1024;
    meminfo.ignore(256, '\n');
  }
  return static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

}  // namespace staghorn
