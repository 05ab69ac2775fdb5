// Times one PT iteration of the coupled hydro-mechanical variant (solid Stokes + Darcy) as the
// model runs it (kernel, walls and ghosts, porosity pass) and prints T_eff beside the copy
// bandwidth measured in the same run (a benchmark: it prints figures, it asserts nothing). Usage:
// bench_hydromech_coupled [n=128] [iterations=200]: the 3-D blob example's set-up
// (models/hydromech/examples/hydromech3d_coupled_blob_gpu.json) on n x n x 2n cells; rows: a
// stream of the iteration's traffic, the generic kernel, the tiled kernel at each launch shape it
// is compiled for (coupled::kTiledShapes), and with a visco-elastic solid (old stresses read too).
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "core/bandwidth.hpp"
#include "core/field_ops.hpp"
#include "core/for_each.hpp"
#include "models/hydromech/coupled.hpp"
#include "models/registry.hpp"
#include "models/run_settings.hpp"

using namespace staghorn;
using bench::seconds_per;

namespace {

// `reads` arrays read and `writes` written per cell, nothing else: the ceiling of a kernel that
// moves exactly A_eff.
struct Stream {
  View f[40];
  int reads, writes;
  SH_HD void operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = f[0].offset(i, j, k);
    real s = 0;
    for (int a = 0; a < reads; ++a) s += f[a].p[o];
    for (int a = 0; a < writes; ++a) f[reads + a].p[o] = s + a;
  }
};

io::json blob(int n, const std::string& kernel, double shear_modulus) {
  io::json b;
  for (const char* side : {"x_lo", "x_hi", "y_lo", "y_hi"}) b[side]["type"] = "closed";
  return {{"model", "hydromech"},
          {"grid", {{"n", {n, n, 2 * n}}, {"length", {10.0, 10.0, 20.0}}}},
          {"time", {{"dt", 0.002}, {"steps", 1}}},
          {"solver", {{"tol_mode", "absolute"}}},
          {"hydromech",
           {{"variant", "coupled"},
            {"phi0", 0.01},
            {"bulk_viscosity", {{"decompaction_weakening", 10}, {"smoothing", 0.05}}},
            {"coupled", {{"kernel", kernel}, {"shear_modulus", shear_modulus}}},
            {"boundary", b},
            {"initial",
             {{"type", "gaussian"},
              {"amplitude", 2.0},
              {"sigma", 1.0},
              {"aspect", {1.0, 1.0, 0.5}},
              {"center", {5.0, 5.0, 4.0}}}}}}};
}

}  // namespace

int main(int argc, char** argv) {
  MpiSession mpi(&argc, &argv);
  const Exec ex = bench::backend_from(argc, argv);  // --backend cpu|cuda|auto
  const int n = argc > 1 ? std::atoi(argv[1]) : 128;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 200;
  const double cells = 2.0 * n * n * n;
  const double bw = bench::reference_bandwidth(ex);
  std::printf("device: %s\ngrid %dx%dx%d, double; copy bandwidth %.1f GB/s (read + write)\n",
              ex.description().c_str(), n, n, 2 * n, bw);
  const bench::TeffTable table(cells, bw, 40);
  auto report = [&](const std::string& name, double s, double bytes) { table.row(name, s, bytes); };

  struct Variant {
    std::string name, kernel;
    int shape;
    double shear_modulus;
  };
  std::vector<Variant> variants = {{"generic iteration", "generic", 0, 0}};
  for (int s = 0; s < hydromech::coupled::kTiledShapeCount; ++s)
    variants.push_back(
        {"tiled iteration, " + stokes::tiled::label(hydromech::coupled::kTiledShapes[s]), "tiled",
         s, 0});
  variants.push_back({"tiled iteration, visco-elastic", "tiled", 0, 30});
  bool streamed = false;
  for (const Variant& v : variants) {
    const io::json config =
        schema_for(find_model("hydromech")).resolve(blob(n, v.kernel, v.shear_modulus));
    const RunSettings rs = RunSettings::from(config);
    const Decomposition dec(rs.grid, Comm());
    hydromech::CoupledHydroMech model({config, rs, dec, ex});
    model.set_tiled_shape(v.shape);
    model.refresh();
    model.begin_solve(rs.dt);
    const double bytes = model.bytes_per_cell_iteration();
    if (!streamed) {
      const int arrays = static_cast<int>(bytes / sizeof(real));
      const Layout l{dec.local_cells(), {1, 1, 1}};
      std::vector<Field> f;
      f.reserve(arrays);
      for (int a = 0; a < arrays; ++a) f.emplace_back("f", Location::cell, l, ex.backend());
      Stream k{};
      k.writes = 13, k.reads = arrays - k.writes;
      for (int a = 0; a < arrays; ++a) k.f[a] = f[a].view();
      const double s = seconds_per(ex, iters, [&] { for_each(ex, l.interior(), k); });
      report("stream (" + std::to_string(k.reads) + " read, 13 write)", s, bytes);
      streamed = true;
    }
    const double s = seconds_per(ex, 1, [&] { model.iterate(iters); }) / iters;
    const bool here = ex.on_device() || v.kernel == "generic";
    report(v.name + (here ? "" : " (not here: generic)"), s, bytes);
  }
  return 0;
}
