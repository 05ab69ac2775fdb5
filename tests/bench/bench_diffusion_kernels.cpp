// Times one PT iteration of the 3-D diffusion model per kernel variant and prints T_eff beside the
// copy bandwidth measured in the same run (a benchmark: it prints figures, it asserts nothing).
// Usage: bench_diffusion_kernels [n=512] [iterations=100] [exponent=3]
#include <cstdio>
#include <cstdlib>

#include "bench_support.hpp"
#include "core/bandwidth.hpp"
#include "core/field_ops.hpp"
#include "core/for_each.hpp"
#include "models/diffusion/diffusion.hpp"
#include "models/registry.hpp"
#include "models/run_settings.hpp"

using namespace staghorn;
using bench::seconds_per;

namespace {

// The same traffic as one iteration (3 arrays read, 2 written) without the stencil.
struct Stream5 {
  View a, b, c, d, e;
  SH_HD void operator()(int i, int j, int k) const {
    const real x = a(i, j, k) + b(i, j, k), y = c(i, j, k);
    d(i, j, k) = x * y;
    e(i, j, k) = x + y;
  }
};

#if defined(__CUDACC__)
// Launch-shape experiments on the fused iteration alone (no boundary kernels).
template <int MinBlocks, class F>
__global__ void __launch_bounds__(256, MinBlocks) bounded_kernel(Region r, F f) {
  const int i = r.lo.x + blockIdx.x * blockDim.x + threadIdx.x;
  const int j = r.lo.y + blockIdx.y * blockDim.y + threadIdx.y;
  const int k = r.lo.z + blockIdx.z * blockDim.z + threadIdx.z;
  if (i < r.hi.x && j < r.hi.y && k < r.hi.z) f(i, j, k);
}

template <class F>
void for_each_launch_512(const Exec& ex, const Region& r, dim3 block, dim3 grid, const F& f) {
  detail::for_each_kernel<<<grid, block, 0, ex.stream(Lane::inner)>>>(r, f);
}

template <int MinBlocks, class F>
void launch_shape(const Exec& ex, const Region& r, dim3 block, const F& f) {
  const Int3 e = r.extent();
  const dim3 grid((e.x + block.x - 1) / block.x, (e.y + block.y - 1) / block.y,
                  (e.z + block.z - 1) / block.z);
  bounded_kernel<MinBlocks><<<grid, block, 0, ex.stream(Lane::inner)>>>(r, f);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  MpiSession mpi(&argc, &argv);
  const Exec ex = bench::backend_from(argc, argv);  // --backend cpu|cuda|auto
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 100;
  const double exponent = argc > 3 ? std::atof(argv[3]) : 3;
  const io::json user = {
      {"model", "diffusion"},
      {"grid", {{"n", {n, n, n}}}},
      {"diffusion", {{"exponent", exponent}, {"initial", {{"type", "box"}, {"background", 0.1}}}}}};
  const io::json config = schema_for(find_model("diffusion")).resolve(user);
  const RunSettings rs = RunSettings::from(config);
  const Decomposition dec(rs.grid, Comm());
  const double cells = double(n) * n * n;
  const double bw = bench::reference_bandwidth(ex);
  std::printf(
      "device: %s\ngrid %d^3, double, exponent %g; copy bandwidth %.1f GB/s (read + write)\n",
      ex.description().c_str(), n, exponent, bw);
  std::printf("%-28s %12s %12s %10s\n", "variant", "ms/iteration", "T_eff GB/s", "T_eff/copy");
  auto report = [&](const char* name, double s, double bytes_per_cell) {
    const double teff = bytes_per_cell * cells / s / 1e9;
    std::printf("%-28s %12.4f %12.1f %9.1f%%\n", name, s * 1e3, teff, 100 * teff / bw);
  };

  {
    const Layout l{dec.local_cells(), {1, 1, 1}};
    Field a("a", Location::cell, l, ex.backend()), b("b", Location::cell, l, ex.backend()),
        c("c", Location::cell, l, ex.backend()), d("d", Location::cell, l, ex.backend()),
        e("e", Location::cell, l, ex.backend());
    for (Field* f : {&a, &b, &c, &d, &e}) fill(ex, *f, 1.0);
    const double s = seconds_per(ex, iters, [&] {
      for_each(ex, l.interior(), Stream5{a.view(), b.view(), c.view(), d.view(), e.view()});
    });
    report("stream (3 read, 2 write)", s, 40);
  }
  {
    // The pieces of one solver step (the automatic kernel: pairs on the GPU, rows on the CPU):
    // where does a step's time go besides iterating?
    diffusion::Diffusion model({config, rs, dec, ex});
    model.refresh();
    const double t_begin = seconds_per(ex, 5, [&] { model.begin_solve(rs.dt); });
    const double t_res = seconds_per(ex, 5, [&] { model.residuals(); });
    const double t_500 = seconds_per(ex, 1, [&] { model.iterate(500); }) / 500;
    std::printf(
        "step pieces: begin_solve %.3f ms, residual check %.3f ms, iteration (500 in a row) %.4f "
        "ms\n",
        t_begin * 1e3, t_res * 1e3, t_500 * 1e3);
    report("auto, 500 in a row", t_500, model.bytes_per_cell_iteration());
  }
  struct Variant {
    const char* name;
    const char* kernel;
    int chunk;
    bool graphs = false;  // solver.graphs: on a GPU, the iterations replayed as CUDA graphs
  };
  for (const Variant v :
       {Variant{"generic (32x8x1)", "generic", 0}, Variant{"pairs (32x8x1 x 2 cells)", "pairs", 0},
        Variant{"pairs, graphed", "pairs", 0, true}, Variant{"rows (CPU; GPU: auto)", "rows", 0},
        Variant{"marching chunk 16", "marching", 16}, Variant{"marching chunk 32", "marching", 32},
        Variant{"marching chunk 64", "marching", 64},
        Variant{"marching chunk 128", "marching", 128}}) {
    io::json c = config;
    c["diffusion"]["kernel"] = v.kernel;
    c["solver"]["graphs"] = v.graphs;
    diffusion::Diffusion model({c, rs, dec, ex});
    model.refresh();
    if (v.chunk) model.set_march_chunk(v.chunk);
    model.begin_solve(rs.dt);
    const double s = seconds_per(ex, 1, [&] { model.iterate(iters); }) / iters;
    report(v.name, s, model.bytes_per_cell_iteration());
  }
#if defined(__CUDACC__)
  if (ex.on_device()) {
    const Layout l{dec.local_cells(), {1, 1, 1}};
    Field H("H", Location::cell, l, ex.backend()), Ho("Ho", Location::cell, l, ex.backend()),
        Hn("Hn", Location::cell, l, ex.backend()), V("V", Location::cell, l, ex.backend());
    for (Field* f : {&H, &Ho, &Hn, &V}) fill(ex, *f, 0.5);
    const Grid& g = rs.grid;
    const double spacing[3] = {1.0 / n, 1.0 / n, 1.0 / n};
    const diffusion::Coefficients co = diffusion::coefficients_for(
        {1.0, exponent, exponent == 3 ? 3 : 0}, 1e-4, spacing, 3, 3 * M_PI * M_PI, 0.95f);
    (void)g;
    const diffusion::Iteration<3> it{co, H.view(), Ho.view(), Hn.view(), V.view()};
    const diffusion::PairIteration<3> pit{co, H.view(), Ho.view(), Hn.view(), V.view()};
    Region half = l.interior();
    half.hi.x /= 2;
    for (const dim3 b : {dim3(32, 8, 1), dim3(16, 16, 1), dim3(32, 4, 1), dim3(64, 4, 1),
                         dim3(16, 8, 2), dim3(32, 4, 2), dim3(128, 2, 1), dim3(8, 32, 1)}) {
      const double s = seconds_per(ex, iters, [&] { launch_shape<1>(ex, half, b, pit); });
      char name[64];
      std::snprintf(name, sizeof name, "pairs kernel %ux%ux%u", b.x, b.y, b.z);
      report(name, s, 40);
    }
    struct Shape {
      const char* name;
      dim3 block;
      int min_blocks;
    };
    for (const Shape sh :
         {Shape{"kernel 32x8x1", dim3(32, 8, 1), 0}, Shape{"kernel 32x8x1 lb6", dim3(32, 8, 1), 6},
          Shape{"kernel 32x8x1 lb8", dim3(32, 8, 1), 8}, Shape{"kernel 64x4x1", dim3(64, 4, 1), 0},
          Shape{"kernel 32x4x2", dim3(32, 4, 2), 0}, Shape{"kernel 128x2x1", dim3(128, 2, 1), 0},
          Shape{"kernel 32x16x1 (512)", dim3(32, 16, 1), 0},
          Shape{"kernel 256x1x1", dim3(256, 1, 1), 0}}) {
      const double s = seconds_per(ex, iters, [&] {
        if (sh.block.x * sh.block.y * sh.block.z > 256) {
          const Int3 e = l.interior().extent();
          const dim3 grid(e.x / sh.block.x, e.y / sh.block.y, e.z / sh.block.z);
          for_each_launch_512(ex, l.interior(), sh.block, grid, it);
        } else if (sh.min_blocks == 6) {
          launch_shape<6>(ex, l.interior(), sh.block, it);
        } else if (sh.min_blocks == 8) {
          launch_shape<8>(ex, l.interior(), sh.block, it);
        } else {
          launch_shape<1>(ex, l.interior(), sh.block, it);
        }
      });
      report(sh.name, s, 40);
    }
  }
#endif
  return 0;
}
