#pragma once
// What the benchmark programs share: timing a body on a backend, and the table of T_eff beside
// the copy bandwidth that scripts/perf_collect.py reads (one row per variant).
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>

#include "core/backend.hpp"
#include "core/bandwidth.hpp"
#include "core/host_stream.hpp"
#include "core/timer.hpp"

namespace staghorn::bench {

// The backend to run on: `--backend cpu|cuda|auto` anywhere on the command line (taken out of
// argv, so that the positional arguments keep their places), else auto (the GPU when one is
// visible).
inline Exec backend_from(int& argc, char** argv) {
  std::string name = "auto";
  int kept = 1;
  for (int a = 1; a < argc; ++a) {
    if (std::strcmp(argv[a], "--backend") == 0 && a + 1 < argc) {
      name = argv[++a];
    } else {
      argv[kept++] = argv[a];
    }
  }
  argc = kept;
  return parse_backend(name) == Backend::cuda ? Exec::cuda(0) : Exec::cpu();
}

// The copy bandwidth of the backend (GB/s, read + write), measured now: a device copy on the GPU,
// STREAM's copy on the CPU, whose triad and array size go on a line of their own.
inline double reference_bandwidth(const Exec& ex) {
  if (ex.on_device()) return copy_bandwidth(ex, 1ull << 30);
  const HostStream h = host_stream(1ull << 28);
  std::printf(
      "STREAM (host): copy %.1f GB/s, triad %.1f GB/s, arrays of %zu MiB (last-level cache %zu "
      "MiB)\n",
      h.copy_GBs, h.triad_GBs, h.array_bytes >> 20, h.cache_bytes >> 20);
  return h.copy_GBs;
}

// Seconds per call of `body`, over `reps` calls after one warm-up call (module load, caches).
inline double seconds_per(const Exec& ex, int reps, const std::function<void()>& body) {
  body();
  ex.synchronize();
  Timer t;
  for (int r = 0; r < reps; ++r) body();
  ex.synchronize();
  return t.seconds() / reps;
}

// Rows of ms per iteration, A_eff, T_eff and T_eff over the copy bandwidth `copy_gbs`, for
// `cells` cells per iteration.
class TeffTable {
 public:
  TeffTable(double cells, double copy_gbs, int name_width = 34)
      : cells_(cells), copy_(copy_gbs), width_(name_width) {
    std::printf("%-*s %12s %10s %12s %10s\n", width_, "variant", "ms/iteration", "A_eff GB",
                "T_eff GB/s", "T_eff/copy");
  }
  void row(const std::string& name, double seconds, double bytes_per_cell) const {
    const double a_eff = bytes_per_cell * cells_ / 1e9, t_eff = a_eff / seconds;
    std::printf("%-*s %12.4f %10.3f %12.1f %9.1f%%\n", width_, name.c_str(), seconds * 1e3, a_eff,
                t_eff, 100 * t_eff / copy_);
    // Each row out as it is measured, into a pipe too: a script sampling the clock and power beside
    // the run can then tell which row drew what.
    std::fflush(stdout);
  }

 private:
  double cells_, copy_;
  int width_;
};

}  // namespace staghorn::bench
