// The tiled CUDA iteration of the coupled variant (models/hydromech/coupled_tiled.hpp) against the
// generic kernel on the same GPU and on the CPU: a 3-D column with closed side walls (no slip on
// two sides), visco-elastic or viscous, closed or with an open top (the kernel computes the
// porosity itself, or reads the pass's), decompaction weakening and a porosity blob, a constant or
// a porosity-weakened power-law shear viscosity, after 50 PT iterations from a random state. Both
// kernels compute the same pointwise expressions, so the results agree to rounding (the compiler
// contracts multiply-adds differently in the two): asserted to 1e-11 of each field's largest change
// (a wrong term or index shows as O(1)), the edges on the high walls included. The grid is not a
// multiple of the tiles (30 x 6 x 16). The comparison is skipped without a GPU, as in CI; the
// reference's own check runs everywhere.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "coupled_fixture.hpp"
#include "test_support.hpp"

namespace staghorn::test {
namespace {

constexpr int kIterations = 50;

// The fluid's sides: closed everywhere; open (pf fixed) at the bottom and top, where the tiled
// kernel extrapolates the ghosts' porosity as the porosity pass does; open on x_hi, where the
// tiled kernel reads the porosity that the pass wrote.
enum class Fluid { closed, open_z, open_x };

struct Case {
  double shear_modulus;  // 0: a viscous solid (the tiled kernel then loads no old stresses)
  Fluid fluid;
  bool varying =
      false;  // a porosity-weakened power-law shear viscosity, updated every 5 iterations
};

io::json column(const std::string& kernel, const Case& c, int nx = 40) {
  io::json fluid;
  for (const char* side : {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"})
    fluid[side] = {{"type", "closed"}};
  if (c.fluid == Fluid::open_z) fluid["z_lo"]["type"] = fluid["z_hi"]["type"] = "dirichlet";
  if (c.fluid == Fluid::open_x) fluid["x_hi"]["type"] = "dirichlet";
  io::json coupled = {{"kernel", kernel},
                      {"shear_modulus", c.shear_modulus},
                      {"boundary", {{"x_lo", "no_slip"}, {"z_hi", "no_slip"}}}};
  if (c.varying) {
    coupled["porosity_weakening"] = 20;
    coupled["power_law"] = {
        {"n", 3}, {"eps_ref", 0.01}, {"eta_min", 0.1}, {"eta_max", 10}, {"interval", 5}};
  }
  return {{"grid", {{"n", {nx, 20, 50}}, {"length", {0.1 * nx, 2.0, 5.0}}}},
          {"time", {{"dt", 0.01}}},
          {"hydromech",
           {{"phi0", 0.02},
            {"bulk_viscosity", {{"decompaction_weakening", 10}, {"smoothing", 0.05}}},
            {"coupled", coupled},
            {"boundary", fluid},
            {"initial", {{"type", "gaussian"}, {"amplitude", 2.0}, {"sigma", 0.6}}}}}};
}

// The same random state in every run (seeded): porosity around phi0, pressures, velocities and
// stresses of order 0.01 (the stresses also become the old, elastic ones). Grid-scale noise of
// order 0.1 in the pressures makes the fluid iterations diverge within five iterations (Pf
// 1e10 at the fourth, on the CPU too): ReferenceIterationsStayFinite... guards against that.
std::vector<std::vector<real>> randomize(CoupledRun& r) {
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Field*> fields = r.model->state_fields();
  for (std::size_t f = 0; f < fields.size(); ++f) {
    std::vector<real> v = fields[f]->to_host();
    const bool viscosity = fields[f]->name() == "mu_s";  // around the law's mu0 = 1
    for (real& x : v)
      x = f == 0 ? 0.02 * (1 + 0.5 * u(gen)) : viscosity ? 1 + 0.5 * u(gen) : 0.01 * u(gen);
    fields[f]->from_host(v);
  }
  r.model->refresh();
  r.model->begin_solve(r.settings.dt);
  std::vector<std::vector<real>> out;
  for (Field* f : fields) out.push_back(interior_values(*f, true));
  return out;
}

std::vector<std::vector<real>> iterate(CoupledRun& r) {
  r.model->iterate(kIterations);
  r.exec.synchronize();
  std::vector<std::vector<real>> out;
  for (Field* f : r.model->state_fields()) out.push_back(interior_values(*f, true));
  return out;
}

// The creep viscosity mu_s is an unknown of the iterations only where it varies; the rates over
// the last step (the predictor's dPdt, dPfdt, dVdt_*) change only at the step's end.
bool iterated(const std::string& name, const Case& c) {
  const bool rate = name == "dPdt" || name == "dPfdt" || name.rfind("dVdt_", 0) == 0;
  return !rate && (name != "mu_s" || c.varying);
}

class CoupledParity : public ::testing::TestWithParam<Case> {};

// The reference (CPU) iterations from the random state stay finite and change every unknown: the
// comparison below would otherwise compare NaN with NaN, or nothing. Runs everywhere (CI too).
TEST_P(CoupledParity, ReferenceIterationsStayFiniteAndMoveEveryUnknown) {
  CoupledRun cpu(column("generic", GetParam()));
  const std::vector<std::vector<real>> start = randomize(cpu);
  const auto c = iterate(cpu);
  const std::vector<Field*> fields = cpu.model->state_fields();
  for (std::size_t f = 0; f < c.size(); ++f) {
    if (fields[f]->name() == "phi" || !iterated(fields[f]->name(), GetParam())) continue;
    double change = 0;
    bool finite = true;
    for (std::size_t q = 0; q < c[f].size(); ++q) {
      finite = finite && std::isfinite(c[f][q]);
      change = std::fmax(change, std::fabs(c[f][q] - start[f][q]));
    }
    EXPECT_TRUE(finite) << fields[f]->name();
    EXPECT_GT(change, 0) << fields[f]->name();
  }
}

TEST_P(CoupledParity, TiledCudaIterationsMatchGeneric) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Case& G = GetParam();
  CoupledRun cpu(column("generic", G)), generic(column("generic", G), Exec::cuda(0)),
      tiled(column("tiled", G), Exec::cuda(0));
  const std::vector<std::vector<real>> start = randomize(cpu);
  randomize(generic);
  randomize(tiled);
  const auto c = iterate(cpu), g = iterate(generic), t = iterate(tiled);
  const std::vector<Field*> fields = cpu.model->state_fields();
  const int nx = 41, ny = 21, nz = 50;
  for (std::size_t f = 0; f < c.size(); ++f) {
    const std::string name = fields[f]->name();
    if (name == "phi" || !iterated(name, G)) continue;  // phi: updated at the end of a step
    double change = 0, tg = 0, tc = 0, gc = 0;
    for (std::size_t q = 0; q < c[f].size(); ++q) {
      // tau_xy on the z wall's plane (k = n, outside the cells) is never read; the generic
      // path's WallEdges updates it, the tiled kernel leaves it (as in the Stokes kernel).
      if (name == "tau_xy" && static_cast<int>(q) / (nx * ny) == nz) continue;
      change = std::fmax(change, std::fabs(g[f][q] - start[f][q]));
      tg = std::isfinite(t[f][q]) ? std::fmax(tg, std::fabs(t[f][q] - g[f][q])) : INFINITY;
      tc = std::isfinite(t[f][q]) ? std::fmax(tc, std::fabs(t[f][q] - c[f][q])) : INFINITY;
      gc = std::fmax(gc, std::fabs(g[f][q] - c[f][q]));
    }
    std::printf(
        "%-7s largest change %.3e | tiled - generic cuda %.2e | tiled - cpu %.2e | "
        "generic cuda - cpu %.2e (relative to the change)\n",
        name.c_str(), change, tg / change, tc / change, gc / change);
    EXPECT_GT(change, 0) << name;
    EXPECT_LE(tg, 1e-11 * change) << name;
    EXPECT_LE(tc, 1e-11 * change) << name;
  }
}

// Every point of V, p and pf, the ghosts of every side included (the velocities' walls, no slip at
// x_lo; p's zero gradient; pf's fluid conditions, closed or fixed on an open x_hi), as the generic
// kernel leaves it: a tiled kernel that sets ghosts itself must set them as the fill does. nx = 42:
// the high x side's ghosts lie in the middle of their 32-byte sectors.
TEST_P(CoupledParity, TiledIterationsLeaveEveryGhostAsGeneric) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (const int nx : {40, 42}) {
    CoupledRun generic(column("generic", GetParam(), nx), Exec::cuda(0)),
        tiled(column("tiled", GetParam(), nx), Exec::cuda(0));
    randomize(generic);
    randomize(tiled);
    auto fields = [](CoupledRun& r) {
      const hydromech::CoupledHydroMech& m = *r.model;
      return std::vector<const Field*>{&m.V(0), &m.V(1), &m.V(2), &m.P(), &m.Pf()};
    };
    const std::vector<const Field*> g = fields(generic), t = fields(tiled);
    std::vector<std::vector<real>> start;
    for (const Field* f : g) start.push_back(all_values(*f));
    generic.model->iterate(kIterations);
    tiled.model->iterate(kIterations);
    const Layout& l = generic.model->P().layout();
    for (std::size_t f = 0; f < start.size(); ++f) {
      const AllPoints c = compare_all_points(l, start[f], all_values(*g[f]), all_values(*t[f]));
      const std::string name = g[f]->name();
      EXPECT_GT(c.x_ghost_change, 0) << name << ", nx " << nx << ": the x sides' ghosts moved";
      EXPECT_LE(c.diff, 1e-11 * c.change) << name << ", nx " << nx;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ElasticityAndOpenSides, CoupledParity,
                         ::testing::Values(Case{30.0, Fluid::closed}, Case{0.0, Fluid::open_z},
                                           Case{30.0, Fluid::open_x},
                                           Case{0.0, Fluid::open_z, true}));

}  // namespace
}  // namespace staghorn::test
