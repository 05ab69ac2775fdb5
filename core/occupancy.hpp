#pragma once
// How many blocks of a kernel the current device holds at once (include only from code compiled
// by nvcc), and how fast its memory is: what a plan of marches needs to count waves (models/mhd/marches.hpp), the tiled
// staggered kernels to group their marches (MarchOrder) and a grid of resident blocks to size
// itself (reduce_segments.hpp).
#include <cuda_runtime.h>

#include <cstddef>

#include "core/backend.hpp"

namespace staghorn {

// The current device's SMs.
inline int device_sms() {
  int device = 0, sms = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
             "cudaDeviceGetAttribute (SM count)");
  return sms;
}

// The current device's peak DRAM bandwidth per SM, bytes per second (two transfers per memory
// clock over the whole bus): how fast memory feeds each SM against what its L2 slice serves.
inline double dram_bandwidth_per_sm() {
  int device = 0, khz = 0, bits = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device),
             "cudaDeviceGetAttribute (memory clock)");
  check_cuda(cudaDeviceGetAttribute(&bits, cudaDevAttrGlobalMemoryBusWidth, device),
             "cudaDeviceGetAttribute (memory bus width)");
  return 2.0 * 1e3 * khz * (bits / 8.0) / device_sms();
}

// Blocks of `kernel` resident at once over the whole device (at least one per SM).
template <class Kernel>
long long resident_blocks(Kernel kernel, int threads, std::size_t shared_bytes) {
  int per_sm = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, shared_bytes),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  return static_cast<long long>(per_sm > 0 ? per_sm : 1) * device_sms();
}

}  // namespace staghorn
