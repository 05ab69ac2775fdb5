// The PT solution of the Stokes model against a direct sparse solve of the same discrete equations
// (direct_stokes.hpp; docs/models/stokes.md, "Reference direct solve"): a 2-D box with weak and
// strong inclusions (contrast 1e3 both ways), buoyancy and pure shear, free-slip and no-slip walls.
// Convergence of the PT iterations then means the right answer of the discrete system.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "direct_stokes.hpp"
#include "stokes_fixture.hpp"

namespace staghorn::test {
namespace {

// 32^2: the strong discs (no rigid-body acceleration: that handles one configured inclusion) take
// ~170000 iterations to 1e-8 here, ~380000 at 48^2 (docs/models/stokes.md).
constexpr int kN = 32;

struct Disc {
  double x, y, r, mu, rho;
};
// Three weak and two strong discs, some light, some heavy, in a matrix of mu = 1, rho = 0.
const Disc kDiscs[] = {{0.25, 0.30, 0.10, 1e-3, -1.0},
                       {0.70, 0.70, 0.12, 1e-3, 0.0},
                       {0.50, 0.52, 0.06, 1e-3, 1.0},
                       {0.30, 0.75, 0.08, 1e3, 1.0},
                       {0.74, 0.27, 0.09, 1e3, 0.0}};

io::json config(double tol) {
  return {
      {"grid", {{"n", {kN, kN, 1}}}},
      {"solver", {{"tol", tol}, {"tol_mode", "absolute"}, {"ncheck", 100}, {"max_iter", 1000000}}},
      {"stokes",
       {{"viscosity", 1.0},
        {"pure_shear", 1.0},
        {"gravity", {0.0, -1.0, 0.0}},
        {"boundary", {{"y_lo", "no_slip"}}}}}};
}

// The discs' material, set directly on the model's fields: cells cut by a surface mix by volume
// fraction (4 x 4 samples; harmonic for mu, arithmetic for rho), later discs over earlier ones.
void set_material(StokesRun& r) {
  const double h = 1.0 / kN;
  auto mix = [&](double x, double y, bool viscosity) {
    double sum = 0;
    for (int b = 0; b < 4; ++b)
      for (int a = 0; a < 4; ++a) {
        const double px = x + ((a + 0.5) / 4 - 0.5) * h, py = y + ((b + 0.5) / 4 - 0.5) * h;
        double mu = 1, rho = 0;
        for (const Disc& d : kDiscs)
          if (std::hypot(px - d.x, py - d.y) < d.r) mu = d.mu, rho = d.rho;
        sum += viscosity ? 1 / mu : rho;
      }
    return viscosity ? 16 / sum : sum / 16;
  };
  r.set(r.model->mu(), [&](double x, double y, double) { return mix(x, y, true); });
  r.set(r.model->rho(), [&](double x, double y, double) { return mix(x, y, false); });
  r.model->refresh();
}

// A host copy of the interior of a cell or face field, i fastest, over ni x nj points.
std::vector<double> interior(const Field& f, int ni, int nj) {
  const std::vector<real> host = f.to_host();
  std::vector<double> out;
  for (int j = 0; j < nj; ++j)
    for (int i = 0; i < ni; ++i) out.push_back(host[f.layout().index(i, j, 0)]);
  return out;
}

DirectStokes2D::State state_of(StokesRun& r) {
  return {interior(r.model->V(0), kN + 1, kN), interior(r.model->V(1), kN, kN + 1),
          interior(r.model->P(), kN, kN)};
}

// The model's problem for the direct solve: its mu and rho after refresh(), its walls and
// residual scales.
DirectStokes2D::Problem problem_of(StokesRun& r) {
  using stokes::Wall;
  DirectStokes2D::Problem p;
  p.nx = p.ny = kN;
  p.dx = p.dy = 1.0 / kN;
  p.walls = {Wall::free_slip, Wall::free_slip, Wall::no_slip, Wall::free_slip};
  p.normal = {-0.5, 0.5, 0.5, -0.5};  // pure shear e (x - 1/2, -(y - 1/2)) on the walls
  p.mu = interior(r.model->mu(), kN, kN);
  p.rho = interior(r.model->rho(), kN, kN);
  p.g[1] = -1;
  p.momentum_scale = 1.0 / r.model->stress_scale();    // L = 1
  p.continuity_scale = 1.0 / r.model->stress_scale();  // mu_0 = 1
  return p;
}

struct Difference {
  double v = 0, p = 0;  // max |v_pt - v_direct|, max |(P_pt - mean) - P_direct|
};
Difference difference(const DirectStokes2D::State& pt, const DirectStokes2D::State& d) {
  Difference out;
  for (std::size_t k = 0; k < pt.vx.size(); ++k)
    out.v = std::fmax(out.v, std::fabs(pt.vx[k] - d.vx[k]));
  for (std::size_t k = 0; k < pt.vy.size(); ++k)
    out.v = std::fmax(out.v, std::fabs(pt.vy[k] - d.vy[k]));
  double mean = 0;
  for (double p : pt.p) mean += p;
  mean /= pt.p.size();
  for (std::size_t k = 0; k < pt.p.size(); ++k)
    out.p = std::fmax(out.p, std::fabs(pt.p[k] - mean - d.p[k]));
  return out;
}

double largest(const std::vector<pt::Residual>& r) {
  double m = 0;
  for (const auto& e : r) m = std::fmax(m, e.norm);
  return m;
}

// Why the bound: the direct solution u solves A u = b (rows scaled as the model scales its
// residual norms), and the PT solution u_pt (P shifted to zero mean, multiplier 0) has the
// residual r = A u_pt - b, whose norm the model reports (<= solver.tol). So u_pt - u = A^-1 r
// exactly, and |v_pt - v|_inf <= |A^-1|_(velocity rows) |r|_inf, the same for P. The norms of the
// inverse's row blocks are Hager's estimates, lower bounds usually within a factor 3 of the truth
// (Higham 1988): the bound is 3 kappa |r|. Then, since the error is linear in the residual, it
// shrinks with the tolerance: from 1e-5 to 1e-8 it falls about as much as the residual (the
// residual's direction changes between the two, so not exactly: measured at 32^2 both fall by
// 1.0e-3, at 48^2 velocity by 1.0e-3 and pressure by 1.5e-2, hence 10x and 30x margins). A PT
// solver that converged to other equations (a wrong wall rule, stencil or average) would stall at
// their difference instead.
TEST(StokesDirect, PtSolutionMatchesTheDirectSolveToTheTolerance) {
  const double tol[2] = {1e-5, 1e-8};
  StokesRun coarse(config(tol[0]));
  set_material(coarse);
  const DirectStokes2D direct(problem_of(coarse));
  const DirectStokes2D::State& d = direct.solution();
  // The direct solution solves its system (a check of the LU, not of the PT solver).
  for (double e : direct.residuals(d)) EXPECT_LE(e, 1e-8);

  Difference diff[2];
  double res[2];
  long long iterations[2];
  iterations[0] = coarse.solve();
  // The tight solve goes on from the loose one's state (V, P, tau: the PT state), so that the two
  // differences come from one iteration history.
  StokesRun tight(config(tol[1]));
  for (Field* f : coarse.model->state_fields()) {
    for (Field* g : tight.model->state_fields())
      if (g->name() == f->name()) g->from_host(f->to_host());
  }
  tight.model->refresh();
  iterations[1] = iterations[0] + tight.solve();
  StokesRun* runs[2] = {&coarse, &tight};
  std::string record;
  for (int t = 0; t < 2; ++t) {
    StokesRun& r = *runs[t];
    const std::vector<pt::Residual> model = r.model->residuals();
    res[t] = largest(model);
    const DirectStokes2D::State s = state_of(r);
    diff[t] = difference(s, d);
    // The same equations: the PT state's residual in the assembled system is the one the model
    // reports (momentum x, y, continuity), to rounding.
    const std::array<double, 3> mine = direct.residuals(s);
    for (int e = 0; e < 3; ++e)
      EXPECT_NEAR(mine[e], model[e].norm, 1e-3 * model[e].norm + 1e-12)
          << model[e].equation << " at tol " << tol[t];
    EXPECT_LE(res[t], tol[t]);
    EXPECT_LE(diff[t].v, 3 * direct.kappa_velocity() * res[t]) << "tol " << tol[t];
    EXPECT_LE(diff[t].p, 3 * direct.kappa_pressure() * res[t]) << "tol " << tol[t];
    char line[256];
    std::snprintf(line, sizeof line,
                  "tol %.0e: iterations %lld residual %.3e |dv| %.3e |dP| %.3e; ", tol[t],
                  iterations[t], res[t], diff[t].v, diff[t].p);
    record += line;
  }
  char line[160];
  std::snprintf(line, sizeof line, "kappa_v %.3e kappa_p %.3e, %d unknowns",
                direct.kappa_velocity(), direct.kappa_pressure(), direct.unknowns());
  record += line;
  RecordProperty("result", record);
  std::printf("%s\n", record.c_str());
  // Proportional to the residual: the ratio of the differences within 10x (velocity), 30x
  // (pressure) the residuals' ratio.
  EXPECT_LE(diff[1].v, 10 * res[1] / res[0] * diff[0].v);
  EXPECT_LE(diff[1].p, 30 * res[1] / res[0] * diff[0].p);
}

}  // namespace
}  // namespace staghorn::test
