// Times the 3-D hydromech PT iteration per kernel variant (generic: phi recomputed over the
// stencil; stored: phi(Pe) kept per cell; pairs: stored, two cells per thread; rows: the CPU's row
// kernel, pairs on a GPU; auto: the model's own choice, rows on the CPU) with and without the
// smoothed decompaction switch, and prints ms per iteration, A_eff, T_eff and T_eff over the copy
// bandwidth measured in the same run (a benchmark: it asserts nothing), and how far each other
// variant's Pe is from the generic one's after the same iterations; the pairs variants once more
// with solver.graphs on (on a GPU: replayed as CUDA graphs, against launched one by one); the
// pairs kernel alone at block sizes of 64 to 512 threads on uniform fields, and at 128 threads on
// varied ones. Usage: bench_hydromech_kernels [n=256] [iterations=100]: grid n x n x 2n, 8 x 8 x 16
// compaction lengths, a flat porous layer with decompaction weakening R = 1000 (the first chimney
// setup; the timings barely depend on the state).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "core/bandwidth.hpp"
#include "core/field_ops.hpp"
#include "core/for_each.hpp"
#include "models/hydromech/hydromech.hpp"
#include "models/registry.hpp"
#include "models/run_settings.hpp"

using namespace staghorn;
using bench::seconds_per;

namespace {

// The traffic of an iteration without the stencil or the arithmetic: `reads` arrays read, two or
// three written (5 arrays: the generic kernel's 40 bytes per cell; 7: the stored kernel's 56).
struct Stream {
  View r0, r1, r2, r3, w0, w1, w2;
  bool seven;
  SH_HD void operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = r0.offset(i, j, k);
    const real x = r0.p[o] + r1.p[o], y = r2.p[o];
    const real z = seven ? r3.p[o] : real(1);
    w0.p[o] = x * y * z;
    w1.p[o] = x + y;
    if (seven) w2.p[o] = x - z;
  }
};

// The interior values of a field (no halo, no row padding).
std::vector<real> interior(const Field& f) {
  const std::vector<real> all = f.to_host();
  const Layout& l = f.layout();
  std::vector<real> out;
  for (int k = 0; k < l.n.z; ++k)
    for (int j = 0; j < l.n.y; ++j)
      for (int i = 0; i < l.n.x; ++i) out.push_back(all[l.index(i, j, k)]);
  return out;
}

io::json chimney(int n, const std::string& kernel, double smoothing, bool graphs) {
  io::json b;
  for (const char* side : {"x_lo", "x_hi", "y_lo", "y_hi"}) b[side]["type"] = "closed";
  return {{"model", "hydromech"},
          {"grid", {{"n", {n, n, 2 * n}}, {"length", {8.0, 8.0, 16.0}}}},
          {"time", {{"dt", 0.01}, {"steps", 1}}},
          {"solver", {{"graphs", graphs}}},
          {"hydromech",
           {{"kernel", kernel},
            {"bulk_viscosity",
             {{"exponent", 1}, {"decompaction_weakening", 1000}, {"smoothing", smoothing}}},
            {"boundary", b},
            {"initial",
             {{"type", "gaussian"},
              {"amplitude", 2.0},
              {"sigma", 0.33},
              {"aspect", {4, 4, 1}},
              {"center", {4.0, 4.0, 4.0}}}}}}};
}

// The pairs kernel with another block size (threads per block), for the scan below.
template <int T>
struct PairsWith : hydromech::PairStoredIteration<3, 3> {
  static constexpr int kThreads = T;
};

// The pairs kernel alone (no Pe ghost or halo porosity kernels) on uniform fields at block sizes
// of 64 to 512 threads: what the launch shape is worth, and what the small kernels cost.
template <int T>
double bare_pairs(const Exec& ex, const Layout& l, const std::vector<std::unique_ptr<Field>>& f,
                  const hydromech::Coefficients& co, int iters) {
  Region r = l.interior();
  r.lo.x /= 2, r.hi.x /= 2;
  const PairsWith<T> k{
      {co, f[0]->view(), f[1]->view(), f[2]->view(), f[3]->view(), f[4]->view(), f[5]->view()}};
  return seconds_per(ex, iters, [&] { for_each(ex, r, k); });
}

// A field's every point (halo included) set to offset + amplitude sin(0.7 q), q its index in
// the array: values that change from cell to cell, with the sign of Pe changing every few cells.
void vary(Field& f, real offset, real amplitude) {
  std::vector<real> v(f.layout().count());
  for (std::size_t q = 0; q < v.size(); ++q) v[q] = offset + amplitude * std::sin(0.7 * q);
  f.from_host(v);
}

}  // namespace

int main(int argc, char** argv) {
  MpiSession mpi(&argc, &argv);
  const Exec ex = bench::backend_from(argc, argv);  // --backend cpu|cuda|auto
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 100;
  const double cells = 2.0 * n * n * n;
  const double bw = bench::reference_bandwidth(ex);
  std::printf("device: %s\ngrid %dx%dx%d, double; copy bandwidth %.1f GB/s (read + write)\n",
              ex.description().c_str(), n, n, 2 * n, bw);
  const bench::TeffTable table(cells, bw, 48);
  auto report = [&](const std::string& name, double s, double bytes) { table.row(name, s, bytes); };

  {
    const Layout l{{n, n, 2 * n}, {1, 1, 1}};
    std::vector<std::unique_ptr<Field>> f;
    for (const char* name : {"r0", "r1", "r2", "r3", "w0", "w1", "w2"}) {
      f.push_back(std::make_unique<Field>(name, Location::cell, l, ex.backend()));
      fill(ex, *f.back(), 1.0);
    }
    for (const bool seven : {false, true}) {
      const Stream s{f[0]->view(), f[1]->view(), f[2]->view(), f[3]->view(),
                     f[4]->view(), f[5]->view(), f[6]->view(), seven};
      const double t = seconds_per(ex, iters, [&] { for_each(ex, l.interior(), s); });
      report(seven ? "stream (4 read, 3 write)" : "stream (3 read, 2 write)", t, seven ? 56 : 40);
    }
  }
  {
    const Layout l{{n, n, 2 * n}, {1, 1, 1}};
    std::vector<std::unique_ptr<Field>> f;  // Pe, phi, phi_old, Pe_new, phi_new, dPe/dtau
    for (const real v : {-0.01, 1.0, 1.0, 0.0, 1.0, 0.0}) {
      f.push_back(std::make_unique<Field>("f", Location::cell, l, ex.backend()));
      fill(ex, *f.back(), v);
    }
    hydromech::Material m;  // the chimney's: R = 1000 smoothed over 0.02
    m.weakening = 1000, m.smoothing = 0.02, m.rsmoothing = 50;
    const real h = 8.0 / n;
    hydromech::Coefficients co{m, 0.01, {1 / h, 1 / h, 1 / h}, {0, 0, 1}, 3 / (h * h), 0.5, 0.95f};
    co.rdt = 100;
    report("pairs kernel alone, 64 threads", bare_pairs<64>(ex, l, f, co, iters), 56);
    report("pairs kernel alone, 128 threads", bare_pairs<128>(ex, l, f, co, iters), 56);
    report("pairs kernel alone, 256 threads", bare_pairs<256>(ex, l, f, co, iters), 56);
    report("pairs kernel alone, 512 threads", bare_pairs<512>(ex, l, f, co, iters), 56);
    // The same kernel, 128 threads, on fields like a model's (Pe of either sign, porosity varying
    // from cell to cell): what the switch's branches and the exponentials on varied values cost
    // against the uniform rows above, apart from anything the model's iteration adds.
    vary(*f[0], 0, 0.01);
    vary(*f[1], 1, 0.5);
    vary(*f[2], 1, 0.5);
    report("pairs kernel alone, varied fields, smoothed", bare_pairs<128>(ex, l, f, co, iters), 56);
    co.mat.smoothing = 0;
    report("pairs kernel alone, varied fields, sharp switch", bare_pairs<128>(ex, l, f, co, iters),
           56);
  }
  struct Variant {
    const char* name;
    const char* kernel;
    double smoothing;
    bool graphs = false;  // solver.graphs (on a GPU: iterations replayed as CUDA graphs)
  };
  std::vector<real> reference;  // Pe of the latest generic variant
  for (const Variant v :
       {Variant{"generic, smoothing 0.02", "generic", 0.02},
        Variant{"stored, smoothing 0.02", "stored", 0.02},
        Variant{"pairs, smoothing 0.02", "pairs", 0.02},
        Variant{"pairs, smoothing 0.02, graphed", "pairs", 0.02, true},
        Variant{"rows, smoothing 0.02", "rows", 0.02},
        Variant{"auto, smoothing 0.02", "auto", 0.02},
        Variant{"generic, sharp switch", "generic", 0.0},
        Variant{"stored, sharp switch", "stored", 0.0},
        Variant{"pairs, sharp switch", "pairs", 0.0},
        Variant{"pairs, sharp switch, graphed", "pairs", 0.0, true},
        Variant{"rows, sharp switch", "rows", 0.0}, Variant{"auto, sharp switch", "auto", 0.0}}) {
    const io::json config =
        schema_for(find_model("hydromech")).resolve(chimney(n, v.kernel, v.smoothing, v.graphs));
    const RunSettings rs = RunSettings::from(config);
    const Decomposition dec(rs.grid, Comm());
    hydromech::HydroMech model({config, rs, dec, ex});
    model.refresh();
    model.begin_solve(rs.dt);
    model.iterate(iters);  // warm-up, and Pe away from its initial zero (both switch branches)
    const double s = seconds_per(ex, 1, [&] { model.iterate(iters); }) / iters;
    report(v.name, s, model.bytes_per_cell_iteration());
    // The variants run the same iterations from the same state: Pe must agree to round-off.
    const std::vector<real> Pe = interior(model.Pe());
    if (std::string(v.kernel) == "generic") {
      reference = Pe;
    } else {
      double diff = 0, scale = 0;
      for (std::size_t i = 0; i < Pe.size(); ++i) {
        diff = std::max(diff, std::fabs(double(Pe[i]) - reference[i]));
        scale = std::max(scale, std::fabs(double(reference[i])));
      }
      std::printf("  max |Pe - Pe_generic| / max |Pe_generic| after %d iterations: %.3e\n",
                  3 * iters, diff / scale);
    }
  }
  return 0;
}
