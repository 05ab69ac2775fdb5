// Manufactured-solution verification of the coupled hydromech variant: one implicit step of the
// full system (solid momentum with buoyancy, solid and fluid mass, the closed-form porosity law
// with decompaction weakening, nonlinear permeability) with analytic sources
// (coupled_manufactured.hpp, CoupledHydroMech::set_sources), at three resolutions; the error of
// every unknown against the exact fields must fall at second order. Cases: a periodic 2-D box,
// a bounded 2-D box (free-slip walls, closed and open fluid sides) and a periodic 3-D box.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include "coupled_fixture.hpp"
#include "coupled_manufactured.hpp"

namespace staghorn::test {
namespace {

constexpr double kL = 6;  // box side, in compaction lengths sqrt(k0 eta0) = 1

// A manufactured solution and the box it lives in.
struct Case {
  mms::Solution s;
  bool periodic = true;
  io::json fluid_sides;  // hydromech.boundary (bounded box)
};

// Smooth periodic fields, modes 1 and 2 (comparable terms in every equation: 2 pi / 6 ~ 1).
// phi_old's modes average to phi0 exactly on any grid of 8 or more cells: the model's reference
// porosity (the mean of phi_old on a periodic up axis) is then phi0.
Case periodic(int dims) {
  const double q = 2 * M_PI / kL, z = dims == 3 ? q : 0;
  Case c;
  mms::Solution& s = c.s;
  s.dims = dims;
  s.v[0].w = {{0.4, {q, q, 0}, 0.2}, {0.3, {0, 2 * q, z}, 1.1}};
  s.v[1].w = {{0.3, {q, -q, z}, 0.5}, {0.2, {2 * q, 0, 0}, 0.4}};
  s.v[2].w = {{0.3, {q, z, -z}, 0.7}, {0.2, {0, q, 2 * z}, 0.8}};
  s.p.w = {{0.3, {q, 2 * q, z}, 0.9}, {0.2, {q, 0, -z}, 0.1}};
  s.pf.w = {{0.25, {2 * q, -q, z}, 0.3}, {0.2, {0, q, 2 * z}, 1.3}};
  s.phi_old.mean = s.phi0;
  s.phi_old.w = {{0.03, {q, q, z}, 0.3}, {0.02, {q, -q, -z}, 2.0}};
  s.phi_ref = s.phi0;
  return c;
}

// A bounded 2-D box: free-slip walls (v_x = dv_y/dx = 0 on the x sides, v_y = dv_x/dy = 0 at the
// bottom and top), fluid closed on the x sides (dpf/dx = 0) and at the top (dpf/dy = B), open at
// the bottom (pf = 0). p and phi_old are unconstrained; phi_ref is phi0 (the key's default).
Case bounded(bool two_phase = false) {
  const double k = M_PI / kL, h = M_PI / 2;  // h: a cosine is a sine of phase + pi/2
  Case c;
  mms::Solution& s = c.s;
  s.two_phase = two_phase;
  s.B = 0.25;  // the top's no-flux gradient B: pf's lithostatic part -B L / pi sin(k y) stays small
  c.periodic = false;
  s.v[0] += mms::separable(0.4, 0, k, 0, 1, k, h);
  s.v[0] += mms::separable(0.2, 0, 2 * k, 0, 1, 2 * k, h);
  s.v[1] += mms::separable(0.3, 0, k, h, 1, k, 0);
  s.v[1] += mms::separable(0.2, 0, 2 * k, h, 1, k, 0);
  s.p.w = {{0.3, {k, 2 * k, 0}, 0.9}, {0.2, {k, 0, 0}, 0.1}};
  s.pf.w = {{-s.drive() * kL / M_PI, {0, k, 0}, 0}};  // d/dy: the fluid's drive at the top
  s.pf += mms::separable(0.25, 0, k, h, 1, k / 2, 0);
  s.pf += mms::separable(0.2, 0, 2 * k, h, 1, 3 * k / 2, 0);
  s.phi_old.mean = s.phi0;
  s.phi_old.w = {{0.03, {k, 2 * k, 0}, 0.3}, {0.02, {2 * k, -k, 0}, 2.0}};
  s.phi_ref = s.phi0;
  c.fluid_sides = {{"x_lo", {{"type", "closed"}}},
                   {"x_hi", {{"type", "closed"}}},
                   {"y_lo", {{"type", "dirichlet"}, {"value", 0}}},
                   {"y_hi", {{"type", "closed"}}}};
  return c;
}

io::json config(const Case& c, int n, double tol) {
  const mms::Solution& s = c.s;
  const bool d3 = s.dims == 3;
  io::json cfg = {{"grid",
                   {{"n", {n, n, d3 ? n : 1}},
                    {"length", {kL, kL, d3 ? kL : 1.0}},
                    {"periodic", {c.periodic, c.periodic, c.periodic && d3}}}},
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
                    {"coupled",
                     {{"physics", s.two_phase ? "two_phase" : "small_porosity"},
                      {"shear_viscosity", s.eta_s},
                      {"shear_modulus", s.G},
                      {"porosity_weakening", s.alpha},
                      {"bulk_power_law", s.bulk_follows},
                      // Relaxed as Stokes does: the smooth manufactured step converges with it.
                      {"power_law",
                       {{"n", s.n_power}, {"eps_ref", s.eps_ref}, {"relaxation", 0.5}}}}}}}};
  if (!c.periodic) cfg["hydromech"]["boundary"] = c.fluid_sides;
  return cfg;
}

// Calls f(x, index) at each of this rank's interior points of a field at `loc`.
template <class F>
void each_point(const CoupledRun& r, const Layout& l, Location loc, F&& f) {
  const Int3 off = r.dec->offset();
  for (int k = 0; k < l.n.z; ++k)
    for (int j = 0; j < l.n.y; ++j)
      for (int i = 0; i < l.n.x; ++i) {
        const int idx[3] = {i + off.x, j + off.y, k + off.z};
        double x[3];
        for (int a = 0; a < 3; ++a) x[a] = r.settings.grid.coordinate(loc, a, idx[a]);
        f(x, l.index(i, j, k));
      }
}

// Max |computed - exact| over the interior points of f, over max |exact|; `up_to_constant`: the
// difference's mean removed first (periodic: v and the pressures are defined up to constants).
template <class Exact>
double error(const CoupledRun& r, const Field& f, Exact exact, bool up_to_constant) {
  const std::vector<real> h = f.to_host();
  std::vector<double> diff;
  double scale = 0;
  each_point(r, f.layout(), f.location(), [&](const double* x, std::ptrdiff_t c) {
    diff.push_back(h[c] - exact(x));
    scale = std::max(scale, std::fabs(exact(x)));
  });
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
// solution only if the sources' sums over the grid balance: sum F_x = sum F_z = 0,
// sum (F_s + F_f) = 0 (mass: div(v_s + q) sums to zero) and sum F_up = B dt sum F_s (the
// buoyancy of the porosity the step takes from phi_old). The analytic sources balance up to the
// midpoint rule's error on smooth periodic functions (spectrally small: 4e-8 at 16^2, round-off
// at 32^2); that imbalance, a constant, is removed from F_v and F_f. It cannot hide a truncation
// error (it is the same at every point). A bounded box needs nothing: no constant is free there.
struct BalancedSources {
  const mms::Solution& s;
  double shift[5] = {0, 0, 0, 0, 0};
  double imbalance = 0;  // largest shift, for the record

  BalancedSources(const mms::Solution& sol, const CoupledRun& r, bool periodic) : s(sol) {
    if (!periodic) return;
    const Location where[5] = {Location::face_x, Location::face_y, Location::face_z, Location::cell,
                               Location::cell};
    const Layout& l = r.model->P().layout();
    const double cells = static_cast<double>(r.settings.grid.cells());
    double mean[5] = {0, 0, 0, 0, 0};
    for (int e = 0; e < 5; ++e)
      if (e >= 3 || e < s.dims)
        each_point(r, l, where[e],
                   [&](const double* x, std::ptrdiff_t) { mean[e] += s.source(e, x) / cells; });
    for (int a = 0; a < s.dims; ++a) shift[a] = mean[a];
    shift[s.up()] -= s.B * s.dt * mean[3];
    shift[4] = mean[3] + mean[4];
    for (double d : shift) imbalance = std::max(imbalance, std::fabs(d));
  }
  double operator()(int e, const double x[3]) const { return s.source(e, x) - shift[e]; }
};

struct Result {
  std::vector<double> err;  // v_x, v_y (, v_z), p, pf, phi
  double residual = 0;
  long long iterations = 0;
  double imbalance = 0;
};

std::vector<std::string> names(int dims) {
  std::vector<std::string> n{"v_x", "v_y", "v_z"};
  n.resize(dims);
  n.insert(n.end(), {"p", "pf", "phi"});
  return n;
}

// One step from phi_old (v, p, pf start at 0) with the manufactured sources.
Result solve(const Case& c, int n, double tol) {
  const mms::Solution& s = c.s;
  CoupledRun r(config(c, n, tol));
  Field& phi = *r.model->state_fields()[0];
  std::vector<real> h = phi.to_host();
  each_point(r, phi.layout(), Location::cell,
             [&](const double* x, std::ptrdiff_t i) { h[i] = static_cast<real>(s.phi_old(x)); });
  phi.from_host(h);
  // The velocity at the step's start, which carries the porosity (two-phase).
  for (Field* f : r.model->state_fields())
    for (int a = 0; a < s.dims; ++a)
      if (s.two_phase && f->name() == std::string("V") + "xyz"[a]) {
        std::vector<real> v = f->to_host();
        each_point(r, f->layout(), f->location(), [&](const double* x, std::ptrdiff_t i) {
          v[i] = static_cast<real>(s.v0[a](x));
        });
        f->from_host(v);
      }
  // The stresses at the step's start (Maxwell): tau_xx.. at cells, tau_xy.. on edges.
  const char* comp[6] = {"tau_xx", "tau_yy", "tau_zz", "tau_xy", "tau_xz", "tau_yz"};
  for (Field* f : r.model->state_fields())
    for (int c = 0; c < 6; ++c)
      if (f->name() == comp[c]) {
        std::vector<real> t = f->to_host();
        each_point(r, f->layout(), f->location(), [&](const double* x, std::ptrdiff_t i) {
          t[i] = static_cast<real>(s.tau_old[c](x));
        });
        f->from_host(t);
      }
  r.model->refresh();
  const BalancedSources sources(s, r, c.periodic);
  r.model->set_sources(sources);
  Result out;
  out.imbalance = sources.imbalance;
  out.iterations = r.run(1);
  const hydromech::CoupledHydroMech& m = *r.model;
  for (int a = 0; a < s.dims; ++a)
    out.err.push_back(error(
        r, m.V(a), [&](const double* x) { return s.v[a](x); }, c.periodic));
  out.err.push_back(error(
      r, m.P(), [&](const double* x) { return s.p(x); }, c.periodic));
  out.err.push_back(error(
      r, m.Pf(), [&](const double* x) { return s.pf(x); }, c.periodic));
  out.err.push_back(error(
      r, m.phi(), [&](const double* x) { return s.phi(x).v; }, false));
  for (const auto& d : r.model->diagnostics())
    if (d.first.rfind("residual_", 0) == 0) out.residual = std::max(out.residual, d.second);
  return out;
}

// Solves at each size, prints and records the errors and orders, asserts second order (orders
// within [least, 2.4]) between successive sizes and residuals far below the errors.
void expect_second_order(const Case& c, const std::vector<int>& sizes, double least = 1.6) {
  const std::vector<std::string> field = names(c.s.dims);
  std::vector<Result> res;
  for (int n : sizes) {
    res.push_back(solve(c, n, 1e-10));
    const Result& r = res.back();
    std::printf("n = %d: %lld iterations, residual %.2e, imbalance %.1e, errors", n, r.iterations,
                r.residual, r.imbalance);
    for (std::size_t f = 0; f < field.size(); ++f)
      std::printf(" %s %.3e", field[f].c_str(), r.err[f]);
    std::printf("\n");
    // The solve is converged far below the smallest error (~1e-4): the test measures the
    // discretisation, not the iterations.
    EXPECT_LT(r.residual, 1e-9);
  }
  for (std::size_t l = 0; l + 1 < sizes.size(); ++l)
    for (std::size_t f = 0; f < field.size(); ++f) {
      const double order = std::log2(res[l].err[f] / res[l + 1].err[f]);
      ::testing::Test::RecordProperty("order_" + field[f] + "_" + std::to_string(sizes[l + 1]),
                                      std::to_string(order));
      std::printf("order %s %d -> %d: %.3f\n", field[f].c_str(), sizes[l], sizes[l + 1], order);
      EXPECT_GT(order, least) << field[f] << " " << sizes[l] << " -> " << sizes[l + 1];
      EXPECT_LT(order, 2.4) << field[f] << " " << sizes[l] << " -> " << sizes[l + 1];
    }
}

TEST(CoupledManufactured, PeriodicBox2DConvergesAtSecondOrder) {
  expect_second_order(periodic(2), {16, 32, 64});
}

// A Maxwell visco-elastic matrix: G dt = eta_s (eta_ve = eta_s / 2, the old stresses weigh as
// much as the strain rates), with smooth stresses at the step's start.
TEST(CoupledManufactured, PeriodicBox2DMaxwellConvergesAtSecondOrder) {
  Case c = periodic(2);
  const double q = 2 * M_PI / kL;
  c.s.G = c.s.eta_s / c.s.dt;
  c.s.tau_old[0].w = {{0.3, {q, -q, 0}, 0.6}};
  c.s.tau_old[1].w = {{0.2, {2 * q, q, 0}, 1.7}};
  c.s.tau_old[3].w = {{0.25, {q, 2 * q, 0}, 0.2}, {0.1, {0, q, 0}, 2.2}};
  expect_second_order(c, {16, 32});
}

TEST(CoupledManufactured, BoundedBox2DConvergesAtSecondOrder) {
  expect_second_order(bounded(), {16, 32});
}

// The exact fields of a case (phi: the porosity at the step's start) at every interior point of
// this rank; the model fills the ghosts.
void load_exact(const CoupledRun& r, const Case& c) {
  const mms::Solution& s = c.s;
  for (Field* f : r.model->state_fields()) {
    std::function<double(const double*)> exact;
    if (f->name() == "phi") exact = [&](const double* x) { return s.phi_old(x); };
    if (f->name() == "P") exact = [&](const double* x) { return s.p(x); };
    if (f->name() == "Pf") exact = [&](const double* x) { return s.pf(x); };
    for (int a = 0; a < s.dims; ++a)
      if (f->name() == std::string("V") + "xyz"[a])
        exact = [&, a](const double* x) { return s.v[a](x); };
    if (!exact) continue;
    std::vector<real> h = f->to_host();
    each_point(r, f->layout(), f->location(),
               [&](const double* x, std::ptrdiff_t i) { h[i] = static_cast<real>(exact(x)); });
    f->from_host(h);
  }
}

// The residual norms of the exact solution at the start of the step (phi = phi_old).
std::vector<pt::Residual> exact_residuals(const Case& c, int n) {
  CoupledRun r(config(c, n, 1e-10));
  load_exact(r, c);
  r.model->refresh();
  r.model->set_sources(BalancedSources(c.s, r, c.periodic));
  r.model->begin_solve(c.s.dt);
  return r.model->residuals();
}

// The discrete equations' truncation error at the exact solution must vanish with h everywhere,
// the boundary cells included. At the open bottom the Darcy flux takes the mean of the two cells'
// permeabilities; a ghost porosity computed from zero-gradient ghosts of p and phi_old is first
// order there, and the fluid mass residual stayed at 1.16, 1.08, 1.05 (16^2, 32^2, 64^2). With
// the extrapolated ghost (boundary.hpp) it falls at first order (the boundary cells; the interior
// is second order). Evaluations only: no solve.
TEST(CoupledManufactured, BoundedBox2DExactResidualVanishesAtTheOpenSide) {
  std::vector<std::vector<pt::Residual>> res;
  for (int n : {16, 32, 64}) {
    res.push_back(exact_residuals(bounded(), n));
    std::printf("n = %d:", n);
    for (const pt::Residual& x : res.back()) std::printf(" %s %.3e", x.equation.c_str(), x.norm);
    std::printf("\n");
  }
  for (std::size_t l = 0; l + 1 < res.size(); ++l)
    for (std::size_t e = 0; e < res[l].size(); ++e) {
      const double order = std::log2(res[l][e].norm / res[l + 1][e].norm);
      std::printf("order %s: %.3f\n", res[l][e].equation.c_str(), order);
      EXPECT_GT(order, 0.8) << res[l][e].equation << " " << l;
    }
}

TEST(CoupledManufactured, PeriodicBox3DConvergesAtSecondOrder) {
  expect_second_order(periodic(3), {12, 24});
}

// The two-phase system: the porosity carried by a velocity v0 at the step's start (the solid's
// of the step before), the factors 1 - phi in the exchange and the fluid's drive. v0 is slow
// enough for one advection step on every grid (the exact A is one Euler step; the model would
// sub-step a Courant number above 1/2, a time error the spatial orders would not fall below).
void carry_porosity(Case& c, double q) {
  mms::Solution& s = c.s;
  s.two_phase = true;
  const double z = s.dims == 3 ? q : 0;
  s.v0[0].w = {{0.25, {q, z, 0}, 0.3}, {0.15, {0, q, -z}, 1.9}};
  s.v0[1].w = {{0.2, {-q, q, z}, 0.8}, {0.1, {2 * q, 0, 0}, 2.6}};
  s.v0[2].w = {{0.15, {0, q, z}, 1.2}};
}

// Everything at once on a periodic box: advection, factors 1 - phi, a power-law shear viscosity
// weakened by porosity, and a bulk viscosity that takes the power law's strain-rate factor. A
// strain that never vanishes (v = (sin qx, -cos qx): eps_II >= q / 2) under waves of a sixth of
// its gradients keeps eps_II well above zero, where the power law is smooth (where it nears zero,
// eps_II^(-2/3) steepens and the orders fall below 2 on these grids).
TEST(CoupledManufactured, TwoPhaseNonlinearPeriodicBox2DConvergesAtSecondOrder) {
  const double q = 2 * M_PI / kL;
  Case c = periodic(2);
  carry_porosity(c, q);
  mms::Solution& s = c.s;
  for (int a = 0; a < 2; ++a)
    for (mms::Wave& w : s.v[a].w) w.a *= 0.15;
  s.v[0].w.push_back({1.0, {q, 0, 0}, 0});
  s.v[1].w.push_back({-1.0, {q, 0, 0}, M_PI / 2});
  s.alpha = 2, s.n_power = 3, s.eps_ref = 0.5, s.bulk_follows = true;
  expect_second_order(c, {16, 32, 64}, 1.8);
}

// A bounded box (walls, a closed and an open fluid side): advection and the porosity-weakened
// shear viscosity (a power law's strain rate would vanish on the walls' symmetry lines).
TEST(CoupledManufactured, TwoPhaseBoundedBox2DConvergesAtSecondOrder) {
  Case c = bounded(true);
  mms::Solution& s = c.s;
  const double k = M_PI / kL, h = M_PI / 2;
  s.v0[0] += mms::separable(0.5, 0, k, 0, 1, k, h);
  s.v0[1] += mms::separable(0.4, 0, 2 * k, h, 1, k, 0);
  s.alpha = 3;
  expect_second_order(c, {16, 32, 64}, 1.8);
}

TEST(CoupledManufactured, TwoPhasePeriodicBox3DConvergesAtSecondOrder) {
  Case c = periodic(3);
  carry_porosity(c, 2 * M_PI / kL);
  c.s.alpha = 2;
  expect_second_order(c, {12, 24}, 1.8);
}

}  // namespace
}  // namespace staghorn::test
