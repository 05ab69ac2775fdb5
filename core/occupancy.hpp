#pragma once
// How many blocks of a kernel the current device holds at once, and its memory's clock and bus
// (include only from code compiled by nvcc): what a plan of marches needs to count waves
// (models/mhd/marches.hpp), the tiled staggered kernels to group their marches (MarchOrder) and
// pick their length (models/stokes/tiled.hpp), and a grid of resident blocks to size itself
// (reduce_segments.hpp).
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

// The current device's memory as CUDA reports it: its peak clock and its bus.
struct DeviceMemory {
  int clock_khz, bus_bits;
};
inline DeviceMemory device_memory() {
  int device = 0;
  DeviceMemory m{0, 0};
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&m.clock_khz, cudaDevAttrMemoryClockRate, device),
             "cudaDeviceGetAttribute (memory clock)");
  check_cuda(cudaDeviceGetAttribute(&m.bus_bits, cudaDevAttrGlobalMemoryBusWidth, device),
             "cudaDeviceGetAttribute (memory bus width)");
  return m;
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
