#pragma once
// The CPU's bandwidth reference, measured as STREAM does (McCalpin): copy (c = a) and triad
// (a = b + q c) over arrays of at least four times the last-level cache, with this process's
// OpenMP threads and static schedule, each array first touched by the threads that later stream
// it (the placement the fields get, core/memory.cpp). Bytes are counted as STREAM and T_eff count
// them: 16 per element for copy, 24 for triad (no write-allocate traffic).
#include <cstddef>

namespace staghorn {

struct HostStream {
  double copy_GBs = 0;
  double triad_GBs = 0;
  std::size_t array_bytes = 0;  // bytes of each array
  std::size_t cache_bytes = 0;  // last-level cache the array size was chosen against (0: unknown)
};

// Median rates over several repetitions, arrays of max(min_array_bytes, 4 x the last-level cache).
HostStream host_stream(std::size_t min_array_bytes);

// Bytes of last-level cache the cores of this process's affinity mask reach: the sum over the
// distinct caches (each counted once however many of the cores share it); 0 when unknown.
std::size_t last_level_cache_bytes();

}  // namespace staghorn
