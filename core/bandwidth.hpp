#pragma once
#include <cstddef>

#include "core/backend.hpp"

namespace staghorn {

// Measured copy bandwidth of the backend's memory in GB/s, counting bytes read plus bytes written
// (the ceiling T_eff is compared with): a device-to-device cudaMemcpy on the GPU, STREAM's copy
// on the CPU (core/host_stream.hpp: arrays of at least `bytes` and four times the last-level
// cache). Median of several repetitions.
double copy_bandwidth(const Exec& ex, std::size_t bytes);

// Bandwidth of a plain peer copy of `bytes` from GPU a to GPU b (cudaMemcpyPeerAsync, peer access
// enabled where the devices allow it), in GB/s per direction; with `both_ways` the copy b -> a
// runs at the same time, as in a halo exchange. The link's ceiling for device-to-device halos.
// 0 without CUDA or without both devices.
double peer_bandwidth(int a, int b, std::size_t bytes, bool both_ways);

}  // namespace staghorn
