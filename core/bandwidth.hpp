#pragma once
#include <cstddef>

#include "core/backend.hpp"

namespace staghorn {

// Measured copy bandwidth of the backend's memory in GB/s, counting bytes read plus bytes written
// (the ceiling T_eff is compared with): a device-to-device cudaMemcpy on the GPU, a parallel
// streaming copy on the CPU. Median of several repetitions of `bytes`-sized copies.
double copy_bandwidth(const Exec& ex, std::size_t bytes);

}  // namespace staghorn
