// Times the MHD stage kernels alone (no halo exchange, no boundary shell): the generic kernel and
// the tiled one (on CUDA; on the CPU its pencil counterpart, models/mhd/pencil.hpp), each over
// the whole interior of a random periodic state (full MHD with entropy, conduction, bulk
// viscosity, an imposed field), and prints ns per cell per RK3 step (3 stages) beside the copy
// bandwidth of the same run and the tiled kernel's agreement with the generic one after one stage
// (in ulps of each field's range, as mhd_parity_test). A benchmark: it prints figures, it asserts
// nothing.
// Each timing is the median over whole RK3 steps of three stage launches (the first reads no w,
// the last writes none), per stage.
// On CUDA it then times the tiled stage on the block one rank of a z split holds (n x n x n/2,
// periodic x and y on the rank) in the boundary-shell layouts a run can take: the whole block
// with images along x and y (no shell: what the block costs alone), a shell of two z slabs on the
// boundary stream beside the inner region, images along x and y (`images+hidden`, the layout of a
// z split), and the six slabs of a shell along every axis with no images (every axis exchanged:
// the layout before images served the axes held by one rank). Exchanges are not included.
// Usage: bench_mhd_stage [n=256] [steps=10] [isothermal=0] [chunk=0]
//   chunk: cells along z per block of the tiled kernel (0: the model's plan, tiled::chunks_for).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bench_support.hpp"
#include "core/bandwidth.hpp"
#include "core/comm.hpp"
#include "core/field.hpp"
#include "core/for_each.hpp"
#include "core/timer.hpp"
#include "core/overlap.hpp"
#include "models/mhd/kernels.hpp"
#include "models/mhd/pencil.hpp"
#if defined(__CUDACC__)
#include "models/mhd/tiled.hpp"
#endif

using namespace staghorn;
using namespace staghorn::mhd;

namespace {

constexpr int kOrder = 6, kHalo = kOrder / 2;

// Uniform in [-1, 1) from a cell's interior index (splitmix64): periodic halos for free.
double noise(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return double(x ^ (x >> 31)) / 9223372036854775808.0 - 1;
}

// Every padded cell of f (halos included) set to amplitude * noise of its periodic image.
void fill_periodic(Field& f, int seed, double amplitude) {
  const Layout& l = f.layout();
  std::vector<real> h(l.count(), 0);
  const Region all = l.all();
  for (int k = all.lo.z; k < all.hi.z; ++k)
    for (int j = all.lo.y; j < all.hi.y; ++j)
      for (int i = all.lo.x; i < all.hi.x; ++i) {
        const std::uint64_t ii = (i + l.n.x) % l.n.x, jj = (j + l.n.y) % l.n.y,
                            kk = (k + l.n.z) % l.n.z;
        const std::uint64_t cell = ii + l.n.x * (jj + l.n.y * kk);
        h[l.index(i, j, k)] = amplitude * noise(cell * 16 + seed);
      }
  f.from_host(h);
}

struct State {
  std::vector<Field> in, out, w;
  State(const Layout& l, Backend b, int vars) {
    for (int v = 0; v < vars; ++v) {
      in.emplace_back("f", Location::cell, l, b);
      out.emplace_back("f_next", Location::cell, l, b);
      w.emplace_back("w", Location::cell, l, b);
      fill_periodic(in.back(), v, 0.05);
    }
  }
  void reset_w() {
    for (std::size_t v = 0; v < w.size(); ++v) fill_periodic(w[v], 8 + int(v), 1e-3);
  }
  StageArgs args(double dx) const {
    StageArgs a{};
    for (std::size_t v = 0; v < in.size(); ++v)
      a.in.p[v] = in[v].view().p, a.out.p[v] = out[v].view().p, a.w.p[v] = w[v].view().p;
    a.shape = in[0].view();
    const real r1 = real(1 / dx);
    a.ax = {{1, a.shape.sy, a.shape.sz}, {r1, r1, r1}};
    a.ph = {1, 5.0 / 3, 1, 0, 5e-3, 1e-3, 5e-3, 1, 1e-3, 0, 0, Vec3{0.1, 0.2, 0.3}};
    a.alpha = -5.0 / 9, a.beta = 15.0 / 16, a.dt = 1e-4, a.kinematic = false;
    return a;
  }
};

// The three stages of an RK3 step: the first reads no w (alpha = 0), the last writes none.
std::array<StageArgs, 3> step_args(StageArgs a) {
  std::array<StageArgs, 3> s{a, a, a};
  s[0].read_w = false;
  s[2].write_w = false;
  return s;
}

// Median over `steps` RK3 steps (3 launches of `launch(args)`), after one to warm up; per stage.
template <class Launch>
double seconds_per_stage(const Exec& ex, const StageArgs& a, int steps, Launch launch) {
  const std::array<StageArgs, 3> step = step_args(a);
  auto one_step = [&] {
    for (const StageArgs& s : step) launch(s);
    ex.synchronize();
  };
  one_step();  // warm-up
  std::vector<double> t;
  for (int i = 0; i < steps; ++i) {
    Timer timer;
    one_step();
    t.push_back(timer.seconds() / 3);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// max |a - b| / ulp(max |a|) over the interior, worst variable.
[[maybe_unused]] double ulps_of_range(const std::vector<std::vector<real>>& a,
                                      const std::vector<Field>& b) {
  double worst = 0;
  for (std::size_t v = 0; v < a.size(); ++v) {
    const std::vector<real>& x = a[v];
    const std::vector<real> y = b[v].to_host();
    const Layout& l = b[v].layout();
    double range = 0, diff = 0;
    for (int k = 0; k < l.n.z; ++k)
      for (int j = 0; j < l.n.y; ++j)
        for (int i = 0; i < l.n.x; ++i) {
          const std::ptrdiff_t o = l.index(i, j, k);
          range = std::fmax(range, std::fabs(x[o]));
          diff = std::isfinite(y[o]) ? std::fmax(diff, std::fabs(x[o] - y[o])) : INFINITY;
        }
    worst = std::fmax(worst, diff / std::ldexp(1.0, std::ilogb(range) - 52));
  }
  return worst;
}

template <bool Entropy>
void run(const Exec& ex, int n, int steps, int chunk) {
  (void)chunk;  // the tiled kernel only
  constexpr int kVars = Entropy ? kMaxVars : kMaxVars - 1;
  const Layout layout{{n, n, n}, {kHalo, kHalo, kHalo}};
  State s(layout, ex.backend(), kVars);
  const StageArgs a = s.args(6.283185307179586 / n);
  const Region r = layout.interior();
  const double cells = double(n) * n * n, bytes = 10.0 * kVars * sizeof(real);
  const double bw = bench::reference_bandwidth(ex);
  std::printf(
      "%s, grid %d^3, order %d, %s; copy bandwidth %.1f GB/s -> memory bound %.4f "
      "ns/cell/step (%.0f B)\n",
      ex.description().c_str(), n, kOrder, Entropy ? "entropy" : "isothermal", bw, bytes / bw,
      bytes);
  auto report = [&](const char* name, double t) {
    const double ns = 3 * t / cells * 1e9;
    std::printf("  %-8s %.4f ms/stage  %.4f ns/cell/step  (%.1f%% of copy)\n", name, t * 1e3, ns,
                100 * bytes / bw / ns);
  };
  s.reset_w();
  for_each(ex, r, Substep<kOrder, Entropy>{a});
  ex.synchronize();
  std::vector<std::vector<real>> generic_out;
  for (const Field& f : s.out) generic_out.push_back(f.to_host());
  report("generic", seconds_per_stage(ex, a, steps, [&](const StageArgs& s) {
           for_each(ex, r, Substep<kOrder, Entropy>{s});
         }));
#if defined(__CUDACC__)
  if (ex.on_device()) {
    s.reset_w();
    launch_tiled<kOrder, Entropy>(ex.stream(Lane::inner), r, a, chunk);
    ex.synchronize();
    const double ulps = ulps_of_range(generic_out, s.out);
    report("tiled", seconds_per_stage(ex, a, steps, [&](const StageArgs& s) {
             launch_tiled<kOrder, Entropy>(ex.stream(Lane::inner), r, s, chunk);
           }));
    std::printf("  tiled - generic after one stage: %.2f ulps of the range (worst variable)\n",
                ulps);
  }
#endif
  if (!ex.on_device()) {
    s.reset_w();
    run_pencils<kOrder, Entropy>(a, r);
    const double ulps = ulps_of_range(generic_out, s.out);
    report("pencil", seconds_per_stage(ex, a, steps, [&](const StageArgs& s) {
             run_pencils<kOrder, Entropy>(s, r);
           }));
    std::printf("  pencil - generic after one stage: %.2f ulps of the range (worst variable)\n",
                ulps);
  }
}

#if defined(__CUDACC__)
// The tiled stage on a z split's block (n x n x n/2) in three shell layouts (the header); per
// stage, beside the whole block's time.
template <bool Entropy>
void shell_layouts(const Exec& ex, int n, int steps, int chunk) {
  constexpr int kVars = Entropy ? kMaxVars : kMaxVars - 1;
  const Layout layout{{n, n, n / 2}, {kHalo, kHalo, kHalo}};
  State s(layout, ex.backend(), kVars);
  const StageArgs a = s.args(6.283185307179586 / n);
  const Int3 images{n, n, 0};
  const ShellSplit z_shell = split_shell(layout.interior(), {0, 0, kHalo});
  // The run's default shell width ({16, 2, 2}) raised to the halo, as split_for does.
  const ShellSplit all_axes = split_shell(layout.interior(), {16, kHalo, kHalo});
  auto timed = [&](const ShellSplit& split, Int3 wrap) {
    s.reset_w();
    return seconds_per_stage(ex, a, steps, [&](const StageArgs& st) {
      ex.order(Lane::inner, Lane::boundary);
      for (const Region& r : split.shell)
        launch_tiled<kOrder, Entropy>(ex.stream(Lane::boundary), r, st, chunk, wrap);
      launch_tiled<kOrder, Entropy>(ex.stream(Lane::inner), split.inner, st, chunk, wrap);
      ex.order(Lane::boundary, Lane::inner);
    });
  };
  const double whole = timed({layout.interior(), {}, layout.interior()}, images);
  const double z = timed(z_shell, images), six = timed(all_axes, {0, 0, 0});
  const double cells = double(n) * n * (n / 2);
  std::printf("  z split's block %dx%dx%d, tiled stage by shell layout (no exchange):\n", n, n,
              n / 2);
  auto line = [&](const char* name, std::size_t slabs, double t) {
    std::printf("    %-34s %zu slabs  %.4f ms/stage  %.4f ns/cell/step  %.3f x the whole block\n",
                name, slabs, t * 1e3, 3 * t / cells * 1e9, t / whole);
  };
  line("whole block, images x y", 0, whole);
  line("z shell, images x y (images+hidden)", z_shell.shell.size(), z);
  line("shell along x y z, no images", all_axes.shell.size(), six);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  MpiSession mpi(&argc, &argv);
  const Exec ex = bench::backend_from(argc, argv);  // --backend cpu|cuda|auto
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  const bool isothermal = argc > 3 && std::atoi(argv[3]) != 0;
  const int chunk = argc > 4 ? std::atoi(argv[4]) : 0;
  if (isothermal)
    run<false>(ex, n, steps, chunk);
  else
    run<true>(ex, n, steps, chunk);
#if defined(__CUDACC__)
  if (ex.on_device()) {
    if (isothermal)
      shell_layouts<false>(ex, n, steps, chunk);
    else
      shell_layouts<true>(ex, n, steps, chunk);
  }
#endif
  return 0;
}
