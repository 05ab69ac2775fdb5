// Times full RK3 steps of the MHD model (3 fused rhs + update stages, halo exchanges included) on
// one GPU, or on the CPU where none is visible (OpenMP threads: OMP_NUM_THREADS), and prints ns
// per cell per step beside the memory and arithmetic bounds of the same run (a benchmark: it
// prints figures, it asserts nothing).
// Usage: bench_mhd [n=256] [steps=10] [order=6] [isothermal=0] [peak_gflops=0] [kernel=tiled]
//                  [hide=1]
//   peak_gflops: the device's double-precision peak (e.g. 34000 for an H100 SXM without its FP64
//   tensor cores, which these kernels do not use); 0 leaves the arithmetic bound out.
//   kernel: tiled or generic (mhd.kernel; tiled runs the tiled kernel on CUDA at orders 2-6, the
//   pencil kernel on the CPU, the generic kernel elsewhere). The stage kernels alone:
//   bench_mhd_stage.
//   hide: exchange.hide_communication (on one rank the tiled and pencil kernels write the
//   periodic halo themselves, with no exchange to hide: see Mhd's constructor).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench_support.hpp"
#include "core/bandwidth.hpp"
#include "core/timer.hpp"
#include "models/mhd/mhd.hpp"
#include "models/registry.hpp"
#include "models/run_settings.hpp"

using namespace staghorn;

namespace {

// Floating-point operations of one stage per cell, counted from the generic kernel: R = order / 2
// points per side; a first derivative costs 3R + 1, a second 3R + 3, a mixed one 5R + 3 (scaling
// included); the pointwise physics (advection, pressure, Lorentz force, viscosity, heating,
// update) is about 200 more (exp counted as one).
double flops_per_cell_stage(int order, bool entropy) {
  const int R = order / 2;
  const int first = entropy ? 24 : 21, second = entropy ? 24 : 18, mixed = 12;
  return first * (3.0 * R + 1) + second * (3.0 * R + 3) + mixed * (5.0 * R + 3) + 200;
}

}  // namespace

int main(int argc, char** argv) {
  MpiSession mpi(&argc, &argv);
  const Exec ex = bench::backend_from(argc, argv);  // --backend cpu|cuda|auto
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  const int order = argc > 3 ? std::atoi(argv[3]) : 6;
  const bool isothermal = argc > 4 && std::atoi(argv[4]) != 0;
  const double peak = argc > 5 ? std::atof(argv[5]) : 0;
  const std::string kernel = argc > 6 ? argv[6] : "tiled";
  const bool hide = argc > 7 ? std::atoi(argv[7]) != 0 : true;
  const io::json user = {
      {"model", "mhd"},
      {"grid",
       {{"n", {n, n, n}},
        {"length", {6.283185307179586, 6.283185307179586, 6.283185307179586}},
        {"periodic", {true, true, true}}}},
      {"rk3", {{"timestep", "fixed"}}},
      {"exchange", {{"hide_communication", hide}}},
      {"mhd",
       {{"order", order},
        {"kernel", kernel},
        {"isothermal", isothermal},
        {"K", 1e-3},
        {"initial", {{"type", "noise"}, {"amplitude", 1e-2}, {"field_amplitude", 1e-2}}}}}};
  const io::json config = schema_for(find_model("mhd")).resolve(user);
  const RunSettings rs = RunSettings::from(config);
  const Decomposition dec(rs.grid, Comm(), {0, 0, 0}, order / 2);
  mhd::Mhd model({config, rs, dec, ex});
  model.refresh();
  const double dt = 1e-4;
  model.advance(dt);  // warm-up: module load, caches
  ex.synchronize();
  Timer t;
  for (int s = 0; s < steps; ++s) model.advance(dt);
  ex.synchronize();
  const double per_step = t.seconds() / steps;
  // The halo exchange alone (all state fields; on one rank the periodic self-copy): what a stage
  // adds to its kernel when not hidden (and not replaced by the tiled kernel's images).
  const int exchanges = 3 * steps;
  Timer tx;
  for (int s = 0; s < exchanges; ++s) model.refresh();
  ex.synchronize();
  const double per_exchange = tx.seconds() / exchanges;

  const double cells = double(n) * n * n;
  const double bytes = 3 * model.bytes_per_cell_iteration();  // per cell and full step
  const double flops = 3 * flops_per_cell_stage(order, !isothermal);
  const double bw = bench::reference_bandwidth(ex);
  const double ns = per_step / cells * 1e9;
  const double bound_bw = bytes / bw;  // ns per cell at the copy bandwidth (GB/s = bytes/ns)
  std::printf("device: %s\n", ex.description().c_str());
  std::printf("grid %d^3, %s, order %d, %s, %s kernel, halo: %s, %d steps\n", n,
              sizeof(real) == 4 ? "single" : "double", order,
              isothermal ? "isothermal" : "with entropy", model.kernel(), model.halo_mode(), steps);
  std::printf("time per cell per RK3 step: %.4f ns (%.3f ms per step)\n", ns, per_step * 1e3);
  std::printf("halo exchange alone: %.3f ms (3 per step)\n", per_exchange * 1e3);
  std::printf(
      "bytes per cell per step: %.0f (each variable, per stage: f read and written, w written "
      "but in the last, read but in the first); flops per cell per step: ~%.0f\n",
      bytes, flops);
  std::printf(
      "copy bandwidth %.1f GB/s -> memory bound %.4f ns/cell/step; achieved %.1f GB/s "
      "(%.1f%% of copy)\n",
      bw, bound_bw, bytes / ns, 100 * bound_bw / ns);
  if (peak > 0)
    std::printf("arithmetic bound at %.0f GFLOP/s: %.4f ns/cell/step; achieved %.1f GFLOP/s\n",
                peak, flops / peak, flops / ns);
  return 0;
}
