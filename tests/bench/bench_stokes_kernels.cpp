// Times one PT iteration of the Stokes model and prints T_eff beside the copy bandwidth measured in
// the same run (a benchmark: it prints figures, it asserts nothing).
// Usage: bench_stokes_kernels [n=256] [iterations=200] [dims=3]
// Prints, per kernel (generic at three block sizes, tiled; then tiled with the inclusion's
// rigid-body acceleration; in 3-D also twelve stiff bodies with and without their corrections):
// ms per iteration, A_eff, T_eff and T_eff as a fraction of the copy bandwidth.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "bench_support.hpp"
#include "core/bandwidth.hpp"
#include "core/field_ops.hpp"
#include "core/for_each.hpp"
#include "models/registry.hpp"
#include "models/run_settings.hpp"
#include "models/stokes/stiff_bodies/rigid_body.hpp"
#include "models/stokes/stiff_bodies/wall_ghosts.hpp"
#include "models/stokes/stokes.hpp"
#include "models/stokes/tiled_shapes.hpp"

using namespace staghorn;
using bench::seconds_per;

namespace {

// The same traffic as one 3-D iteration (13 arrays read, 10 written) without the stencil: the
// ceiling of a kernel that moves exactly A_eff.
struct Stream23 {
  View r[13], w[10];
  SH_HD void operator()(int i, int j, int k) const {
    const std::ptrdiff_t o = r[0].offset(i, j, k);
    real s = 0;
    for (int a = 0; a < 13; ++a) s += r[a].p[o];
    for (int a = 0; a < 10; ++a) w[a].p[o] = s + a;
  }
};

// The 3-D example's twelve random inclusions 1e6 times stiffer (smoothed, median floor): the
// iteration with their rigid-mode corrections, without them, and the corrections alone (their
// passes over the listed cells; the rows' T_eff counts the iteration's bytes per grid cell,
// so the difference of the first two is what the bodies cost a user).
void many_stiff_bodies(int n, const Decomposition& dec, const Exec& ex, int iters,
                       const bench::TeffTable& table) {
  const io::json inclusions = {{"shape", "random_inclusions"},
                               {"count", 12},
                               {"radius_min", 0.06},
                               {"radius_max", 0.1},
                               {"gap", 0.02},
                               {"seed", 3},
                               {"viscosity", 1e6}};
  const io::json user = {
      {"model", "stokes"},
      {"grid", {{"n", {n, n, n}}}},
      {"solver", {{"tol_mode", "absolute"}}},
      {"stokes",
       {{"pure_shear", 1.0},
        {"smoothing", 10},
        {"smoothing_mean", "geometric"},
        {"pt_viscosity_floor", "median"},
        {"materials", {{"subsamples", 2}, {"phases", io::json::array({inclusions})}}}}}};
  io::json config = schema_for(find_model("stokes")).resolve(user);
  const RunSettings rs = RunSettings::from(config);
  for (const char* mode : {"auto", "off"}) {
    config["stokes"]["rigid_bodies"]["mode"] = mode;
    stokes::Stokes model({config, rs, dec, ex});
    model.refresh();
    model.begin_solve(1);
    const double bytes = model.bytes_per_cell_iteration();
    const double s = seconds_per(ex, 1, [&] { model.iterate(iters); }) / iters;
    const stokes::RigidBodies& bodies = model.rigid_bodies();
    table.row(std::string("tiled, 12 stiff bodies, correction ") + (bodies.empty() ? "off" : "on"),
              s, bytes);
    if (bodies.empty()) continue;
    auto copy_of = [](const Field& f) {
      Field c(f.name(), f.location(), f.layout(), f.backend());
      c.copy_from(f);
      return c;
    };
    std::array<Field, 3> V = {copy_of(model.V(0)), copy_of(model.V(1)), copy_of(model.V(2))};
    const stokes::Params p = model.params();
    stokes::BodyStresses st{model.P().view(), {}, p.vdt, {p.rdx, p.rdy, p.rdz}};
    for (int n = 0; n < 6; ++n) st.T[n] = model.tau(n).view();
    const stokes::WallGhosts walls = stokes::wall_ghosts(model.walls(), dec, model.V(0).layout());
    bool set = true;
    const double c = seconds_per(ex, iters, [&] { set = bodies.correct(V, st, walls); });
    std::printf(
        "  %zu bodies, %lld face records (%.1f%% of the cells), %lld surface records:"
        " correction alone %.3f ms; sides within its reach 0x%02x of 0x3f (halo exchanged and"
        " walls set again after it: %s)\n",
        bodies.size(), bodies.face_records(),
        100.0 * double(bodies.face_records()) / double(dec.grid().cells()),
        bodies.surface_records(), c * 1e3, bodies.near_block_edge() ? bodies.edge_sides() : 0u,
        set ? "no" : "yes");
  }
}

}  // namespace

int main(int argc, char** argv) {
  MpiSession mpi(&argc, &argv);
  const Exec ex = bench::backend_from(argc, argv);  // --backend cpu|cuda|auto
  const int n = argc > 1 ? std::atoi(argv[1]) : 256;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 200;
  const int dims = argc > 3 ? std::atoi(argv[3]) : 3;
  const io::json user = {
      {"model", "stokes"},
      {"grid", {{"n", {n, n, dims == 3 ? n : 1}}}},
      {"solver", {{"tol_mode", "absolute"}}},
      {"stokes",
       {{"gravity", {0.0, dims == 3 ? 0.0 : -1.0, dims == 3 ? -1.0 : 0.0}},
        {"inclusion", {{"radius", 0.1}, {"viscosity", 10.0}, {"density", 1.0}}}}}};
  const io::json config = schema_for(find_model("stokes")).resolve(user);
  const RunSettings rs = RunSettings::from(config);
  const Decomposition dec(rs.grid, Comm());
  const double cells = double(rs.grid.cells());
  const double bw = bench::reference_bandwidth(ex);
  std::printf("device: %s\ngrid %d^%d, double; copy bandwidth %.1f GB/s (read + write)\n",
              ex.description().c_str(), n, dims, bw);
  const bench::TeffTable table(cells, bw);
  auto report = [&](const std::string& name, double s, double bytes) { table.row(name, s, bytes); };

  {
    const Layout l{dec.local_cells(), {1, 1, dims == 3 ? 1 : 0}};
    std::vector<Field> f;
    f.reserve(23);
    for (int a = 0; a < 23; ++a)
      f.emplace_back("f" + std::to_string(a), Location::cell, l, ex.backend());
    for (Field& x : f) fill(ex, x, 1.0);
    Stream23 k;
    for (int a = 0; a < 13; ++a) k.r[a] = f[a].view();
    for (int a = 0; a < 10; ++a) k.w[a] = f[13 + a].view();
    const double s = seconds_per(ex, iters, [&] { for_each(ex, l.interior(), k); });
    report("stream (13 read, 10 write)", s, 23 * sizeof(real));
  }
  // The generic kernel at three block sizes, then the tiled one (3-D: CUDA's tiled kernel, the
  // CPU's march; in 2-D the generic one runs in its place, and the line says so).
  // The inclusion is 10x stiffer, so the model turns its rigid-body acceleration on by default:
  // the kernels are timed without it (their own figure), the last row with it (the model as a
  // user runs it: the kernel plus the body's reductions and velocity shift each iteration).
  // The tiled kernel's other launch shapes (stokes::tiled::kShapes, on a GPU) follow its row.
  struct Variant {
    const char* kernel;
    int threads;
    bool rigid;
    int shape;
    bool graphs = false;  // solver.graphs: on a GPU, the iterations replayed as CUDA graphs
  };
  std::vector<Variant> variants = {{"generic", 256, false, 0},
                                   {"generic", 128, false, 0},
                                   {"generic", 512, false, 0},
                                   {"tiled", 256, false, 0}};
  if (dims == 3 && ex.on_device())
    for (int s = 1; s < stokes::tiled::kShapeCount; ++s)
      variants.push_back({"tiled", 256, false, s});
  variants.push_back({"tiled", 256, true, 0});
  if (dims == 3 && ex.on_device()) variants.push_back({"tiled", 256, false, 0, true});
  double bytes = 0;
  for (const Variant& v : variants) {
    io::json c = config;
    c["stokes"]["kernel"] = v.kernel;
    c["solver"]["graphs"] = v.graphs;
    if (!v.rigid) c["stokes"]["inclusion"]["rigid_acceleration"] = 0.0;
    stokes::Stokes model({c, rs, dec, ex});
    model.set_threads(v.threads);
    model.set_tiled_shape(v.shape);
    model.refresh();
    model.begin_solve(rs.dt);
    const bool tiled = std::string(v.kernel) == "tiled";
    if (v.threads == 256 && !tiled) {
      const double t_res = seconds_per(ex, 5, [&] { model.residuals(); });
      std::printf("residual check (all equations): %.3f ms\n", t_res * 1e3);
    }
    const double s = seconds_per(ex, 1, [&] { model.iterate(iters); }) / iters;
    char name[64];
    if (tiled && v.shape > 0)
      std::snprintf(name, sizeof name, "tiled iteration, %s",
                    stokes::tiled::label(stokes::tiled::kShapes[v.shape]).c_str());
    else if (tiled && v.graphs)
      std::snprintf(name, sizeof name, "tiled iteration, graphed");
    else if (tiled)
      std::snprintf(name, sizeof name, "tiled iteration%s%s", v.rigid ? " + rigid body" : "",
                    dims != 3        ? " (not here: generic)"
                    : ex.on_device() ? ""
                                     : " (CPU: march)");
    else
      std::snprintf(name, sizeof name, "generic iteration, %d threads", v.threads);
    bytes = model.bytes_per_cell_iteration();
    report(name, s, bytes);
  }
  std::printf("A_eff per cell: %.0f bytes (V, P, tau read and written; mu, mu_max, rho read)\n",
              bytes);
  if (dims == 3) many_stiff_bodies(n, dec, ex, iters, table);
  return 0;
}
