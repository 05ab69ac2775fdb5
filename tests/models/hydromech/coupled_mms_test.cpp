// Manufactured-solution verification of the coupled hydromech variant in 2-D: one implicit step
// of the full system (solid momentum with buoyancy, solid and fluid mass, the closed-form porosity
// law with decompaction weakening, nonlinear permeability) on a periodic box, at 16^2 and 32^2
// cells; the error of every unknown against the exact fields must fall at second order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "coupled_fixture.hpp"
#include "coupled_manufactured.hpp"

namespace staghorn::test {
namespace {

constexpr double kL = 6;  // box side, in compaction lengths sqrt(k0 eta0) = 1

// Smooth periodic fields on the kL x kL box, modes 1 and 2 (comparable terms in every equation:
// kappa = 2 pi / 6 ~ 1). phi_old's modes average to phi0 exactly on any grid of 8 or more cells:
// the model's reference porosity (the mean of phi_old on a periodic up axis) is then phi0.
mms::Solution periodic_2d() {
  const double q = 2 * M_PI / kL;
  mms::Solution s;
  s.v[0].w = {{0.4, {q, q, 0}, 0.2}, {0.3, {0, 2 * q, 0}, 1.1}};
  s.v[1].w = {{0.3, {q, -q, 0}, 0.5}, {0.2, {2 * q, 0, 0}, 0.4}};
  s.p.w = {{0.3, {q, 2 * q, 0}, 0.9}, {0.2, {q, 0, 0}, 0.1}};
  s.pf.w = {{0.25, {2 * q, -q, 0}, 0.3}, {0.2, {0, q, 0}, 1.3}};
  s.phi_old.mean = s.phi0;
  s.phi_old.w = {{0.03, {q, q, 0}, 0.3}, {0.02, {q, -q, 0}, 2.0}};
  s.phi_ref = s.phi0;
  return s;
}

io::json config(const mms::Solution& s, int n, double tol) {
  return {
      {"grid", {{"n", {n, n, 1}}, {"length", {kL, kL, 1.0}}, {"periodic", {true, true, false}}}},
      {"time", {{"dt", s.dt}, {"steps", 1}}},
      {"solver", {{"tol", tol}, {"ncheck", 100}, {"max_iter", 200000}}},
      {"hydromech",
       {{"phi0", s.phi0},
        {"permeability", {{"k0", s.k0}, {"exponent", s.n}}},
        {"bulk_viscosity",
         {{"eta0", s.eta0},
          {"exponent", 1},
          {"decompaction_weakening", s.R},
          {"smoothing", s.smoothing}}},
        {"buoyancy", s.B},
        {"coupled", {{"shear_viscosity", s.eta_s}}}}}};
}

// Max |computed - exact| over this rank's interior points of f, over max |exact|; `up_to_constant`:
// the difference's mean removed first (periodic: v and the pressures are defined up to constants).
template <class Exact>
double error(const CoupledRun& r, const Field& f, Exact exact, bool up_to_constant) {
  const std::vector<real> h = f.to_host();
  const Layout& l = f.layout();
  const Int3 off = r.dec->offset();
  std::vector<double> diff;
  double scale = 0;
  for (int k = 0; k < l.n.z; ++k)
    for (int j = 0; j < l.n.y; ++j)
      for (int i = 0; i < l.n.x; ++i) {
        const int idx[3] = {i + off.x, j + off.y, k + off.z};
        double x[3];
        for (int a = 0; a < 3; ++a) x[a] = r.settings.grid.coordinate(f.location(), a, idx[a]);
        const double e = exact(x);
        diff.push_back(h[l.index(i, j, k)] - e);
        scale = std::max(scale, std::fabs(e));
      }
  double mean = 0;
  if (up_to_constant) {
    for (double d : diff) mean += d;
    mean /= static_cast<double>(diff.size());
  }
  double err = 0;
  for (double d : diff) err = std::max(err, std::fabs(d - mean));
  return err / scale;
}

// The sources as the model's points see them. On a periodic box the discrete problem has a
// solution only if the sources' sums over the grid balance: sum F_x = 0, sum (F_s + F_f) = 0
// (mass: div(v_s + q) sums to zero) and sum F_y = B dt sum F_s (the buoyancy of the porosity the
// step takes from phi_old). The analytic sources balance up to the midpoint rule's error on
// smooth periodic functions (spectrally small: 1e-6 relative at 16^2, round-off at 32^2); that
// imbalance, a constant, is removed from F_x, F_y and F_f. It cannot hide a truncation error
// (it is the same at every point).
struct BalancedSources {
  const mms::Solution& s;
  double shift[5] = {0, 0, 0, 0, 0};
  double imbalance = 0;  // largest shift, for the record

  BalancedSources(const mms::Solution& sol, const CoupledRun& r) : s(sol) {
    const Grid& g = r.settings.grid;
    const Location where[5] = {Location::face_x, Location::face_y, Location::face_z, Location::cell,
                               Location::cell};
    double sum[5] = {0, 0, 0, 0, 0};
    for (int e : {0, 1, 3, 4})
      for (int j = 0; j < g.n.y; ++j)
        for (int i = 0; i < g.n.x; ++i) {
          const double x[3] = {g.coordinate(where[e], 0, i), g.coordinate(where[e], 1, j), 0.5};
          sum[e] += s.source(e, x) / (g.n.x * g.n.y);
        }
    shift[0] = sum[0];
    shift[1] = sum[1] - s.B * s.dt * sum[3];
    shift[4] = sum[3] + sum[4];
    for (double d : shift) imbalance = std::max(imbalance, std::fabs(d));
  }
  double operator()(int e, const double x[3]) const { return s.source(e, x) - shift[e]; }
};

struct Result {
  double err[5];  // v_x, v_y, p, pf, phi
  double residual;
  long long iterations;
  double imbalance;
};
const char* kNames[5] = {"v_x", "v_y", "p", "pf", "phi"};

// One step from phi_old (v, p, pf start at 0) with the manufactured sources.
Result solve(const mms::Solution& s, int n, double tol) {
  CoupledRun r(config(s, n, tol));
  Field& phi = *r.model->state_fields()[0];
  std::vector<real> h = phi.to_host();
  const Layout& l = phi.layout();
  for (int j = 0; j < l.n.y; ++j)
    for (int i = 0; i < l.n.x; ++i) {
      const double x[3] = {r.settings.grid.coordinate(Location::cell, 0, i),
                           r.settings.grid.coordinate(Location::cell, 1, j), 0.5};
      h[l.index(i, j, 0)] = static_cast<real>(s.phi_old(x));
    }
  phi.from_host(h);
  r.model->refresh();
  const BalancedSources sources(s, r);
  r.model->set_sources(sources);
  Result out{};
  out.imbalance = sources.imbalance;
  out.iterations = r.run(1);
  const hydromech::CoupledHydroMech& m = *r.model;
  out.err[0] = error(
      r, m.V(0), [&](const double* x) { return s.v[0](x); }, true);
  out.err[1] = error(
      r, m.V(1), [&](const double* x) { return s.v[1](x); }, true);
  out.err[2] = error(
      r, m.P(), [&](const double* x) { return s.p(x); }, true);
  out.err[3] = error(
      r, m.Pf(), [&](const double* x) { return s.pf(x); }, true);
  out.err[4] = error(
      r, m.phi(), [&](const double* x) { return s.phi(x).v; }, false);
  for (const char* e :
       {"residual_momentum_x", "residual_momentum_y", "residual_solid_mass", "residual_fluid_mass"})
    out.residual = std::max(out.residual, r.diagnostic(e));
  return out;
}

TEST(CoupledManufactured, PeriodicBox2DConvergesAtSecondOrder) {
  const mms::Solution s = periodic_2d();
  const int sizes[3] = {16, 32, 64};
  Result res[3];
  for (int l = 0; l < 3; ++l) {
    res[l] = solve(s, sizes[l], 1e-10);
    std::printf("n = %d: %lld iterations, residual %.2e, imbalance %.1e, errors", sizes[l],
                res[l].iterations, res[l].residual, res[l].imbalance);
    for (int f = 0; f < 5; ++f) std::printf(" %s %.3e", kNames[f], res[l].err[f]);
    std::printf("\n");
  }
  for (int l = 0; l < 2; ++l)
    for (int f = 0; f < 5; ++f) {
      const double order = std::log2(res[l].err[f] / res[l + 1].err[f]);
      RecordProperty(std::string("order_") + kNames[f] + "_" + std::to_string(sizes[l + 1]),
                     std::to_string(order));
      std::printf("order %s %d -> %d: %.3f\n", kNames[f], sizes[l], sizes[l + 1], order);
      EXPECT_GT(order, 1.6) << kNames[f];
      EXPECT_LT(order, 2.4) << kNames[f];
    }
  // The solves are converged far below the smallest error (~2e-4): what is measured is the
  // discretisation, not the iterations.
  for (const Result& r : res) EXPECT_LT(r.residual, 1e-9);
}

}  // namespace
}  // namespace staghorn::test
