// The host's ceiling for the thread scaling of a compute-bound kernel: double-precision fused
// multiply-adds on values held in L1 (no memory traffic, no synchronisation but the start and
// end of the parallel region), timed on 1, 2, 4, ... threads. Its speed-up on T threads bounds
// what any compute-bound CPU kernel can reach there (the MHD pencil kernel: docs/performance.md,
// "MHD on the CPU"); on a virtual host whose cores share a turbo budget it is below T.
//   bench_cpu_scaling [MAX_THREADS] [SECONDS_PER_COUNT]
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/timer.hpp"

namespace {

constexpr int kLanes = 64;  // independent chains per thread: enough to hide the FMA latency

// Fused multiply-adds per second of `threads` threads running `passes` passes each.
double fma_rate(int threads, long passes) {
  double sink = 0;
  const staghorn::Timer timer;
#pragma omp parallel num_threads(threads) reduction(+ : sink)
  {
    alignas(64) double x[kLanes];
    for (int i = 0; i < kLanes; ++i) x[i] = 1e-3 * (i + omp_get_thread_num());
    const double a = 0.999999, b = 1e-7;
    for (long p = 0; p < passes; ++p) {
#pragma omp simd
      for (int i = 0; i < kLanes; ++i) x[i] = x[i] * a + b;
    }
    for (int i = 0; i < kLanes; ++i) sink += x[i];
  }
  const double seconds = timer.seconds();
  if (sink == 42) std::printf("(sink)\n");  // keeps the work
  return double(threads) * passes * kLanes / seconds;
}

}  // namespace

int main(int argc, char** argv) {
  const int max_threads = argc > 1 ? std::atoi(argv[1]) : omp_get_num_procs();
  const double seconds = argc > 2 ? std::atof(argv[2]) : 1.0;
  // Passes for about `seconds` on one thread, from a short calibration run.
  long passes = 1 << 20;
  const double rate1 = fma_rate(1, passes);
  passes = std::max(1L, static_cast<long>(seconds * rate1 / kLanes));
  const double base = fma_rate(1, passes);
  std::printf("threads  GFMA/s  speed-up  per thread\n");
  for (int t = 1; t <= max_threads; t *= 2) {
    const double r = t == 1 ? base : fma_rate(t, passes);
    std::printf("%7d  %6.1f  %8.2f  %10.2f\n", t, r * 1e-9, r / base, r / base / t);
  }
  return 0;
}
