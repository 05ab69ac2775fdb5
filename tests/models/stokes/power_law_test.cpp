// Verification of the Stokes model's power-law viscosity (docs/models/stokes.md, "Power-law
// viscosity"): a power-law fluid driven down a periodic channel between no-slip walls against its
// analytical velocity profile, for n = 1, 3, 5, second order in the spacing; the caps hold.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "stokes_fixture.hpp"
#include "test_support.hpp"

namespace staghorn::test {
namespace {

// Flow along x between no-slip walls at y = 0 and y = H, driven by the body force rho g along x,
// periodic in x. Momentum reduces to d(tau_xy)/dy + rho g = 0, so by symmetry
//   tau_xy(y) = rho g (H/2 - y),
// whatever the rheology. With eps_xy = (du/dy)/2 the only strain rate, the model's invariant is
//   eps_II = sqrt(eps_ij eps_ij / 2) = sqrt((eps_xy^2 + eps_yx^2) / 2) = |eps_xy|,
// and tau = 2 eta eps with eta = eta0 (eps_II / eps_ref)^(1/n - 1) gives
//   tau = 2 eta0 eps_ref^(1 - 1/n) |eps_xy|^(1/n - 1) eps_xy,
//   eps_xy = eps_ref (tau / (2 eta0 eps_ref))^n   (tau >= 0),
// i.e. eta = eta0 (tau / (2 eta0 eps_ref))^(1 - n) as a function of the stress. The caps bound
// eta, and since eta decreases monotonically with tau (n > 1) they are Newtonian layers where tau
// is below tau(eta_max) (the core) or above tau(eta_min) (at the walls):
//   eps_xy(tau) = tau / (2 clamp(eta0 (tau / (2 eta0 eps_ref))^(1 - n), eta_min, eta_max)).
// Integrating du/dy = 2 eps_xy from the wall, with s = |H/2 - y| the distance from the centre:
//   u(y) = int_s^(H/2) 2 eps_xy(rho g s') ds',
// in closed form on each piece: rho g (b^2 - a^2) / (2 E) where eta = E (a cap), and
//   2 eps_ref (rho g / (2 eta0 eps_ref))^n (b^(n+1) - a^(n+1)) / (n + 1)
// on the power law. n = 1 gives Poiseuille's u = rho g y (H - y) / (2 eta0).
struct Channel {
  double n = 1, H = 1, rho_g = 1, eta0 = 1;
  // The wall stress rho g H / 2 over 2 eta0: the viscosity at the wall is eta0 for every n.
  double eps_ref = 0.25;
  double eta_min = 0, eta_max = 0;  // 0: none

  // The distance from the centre where the power law reaches viscosity eta (n > 1).
  double distance_at(double eta) const {
    const double tau = 2 * eta0 * eps_ref * std::pow(eta / eta0, 1 / (1 - n));
    return tau / rho_g;
  }
  double newtonian(double a, double b, double E) const { return rho_g * (b * b - a * a) / (2 * E); }
  double power(double a, double b) const {
    return 2 * eps_ref * std::pow(rho_g / (2 * eta0 * eps_ref), n) *
           (std::pow(b, n + 1) - std::pow(a, n + 1)) / (n + 1);
  }
  double velocity(double y) const {
    const double s = std::fabs(H / 2 - y), top = H / 2;
    if (n == 1) return power(s, top);
    // The core (eta_max) lies below s1, the wall layers (eta_min) above s2.
    const double s1 = eta_max > 0 ? std::fmin(distance_at(eta_max), top) : 0;
    const double s2 = eta_min > 0 ? std::fmin(distance_at(eta_min), top) : top;
    double u = 0;
    if (s < s1) u += newtonian(s, s1, eta_max);
    const double a = std::fmax(s, s1);
    if (a < s2) u += power(a, s2);
    u += newtonian(std::fmax(s, s2), top, eta_min > 0 ? eta_min : 1);  // empty without eta_min
    return u;
  }

  io::json config(int ny, double tol) const {
    io::json pl = {{"n", n}, {"eps_ref", eps_ref}, {"eta_min", eta_min}};
    if (eta_max > 0) pl["eta_max"] = eta_max;
    // 2 columns of square cells: the flow does not vary along x.
    return {
        {"grid",
         {{"n", {2, ny, 1}}, {"length", {2 * H / ny, H, 1.0}}, {"periodic", {true, false, false}}}},
        {"solver", {{"tol", tol}, {"tol_mode", "absolute"}, {"ncheck", 200}, {"max_iter", 400000}}},
        {"stokes",
         {{"viscosity", eta0},
          {"density", 1.0},
          {"gravity", {rho_g, 0.0, 0.0}},
          {"power_law", pl},
          {"boundary", {{"y_lo", "no_slip"}, {"y_hi", "no_slip"}}}}}};
  }

  struct Result {
    double error;  // max |v_x - u| / max u
    long long iterations;
    double mu_min, mu_max;
  };
  Result run(int ny, double tol = 1e-9) const {
    StokesRun r(config(ny, tol));
    Result out{0, r.solve(), INFINITY, 0};
    for (const auto& e : r.model->residuals()) EXPECT_LE(e.norm, tol) << e.equation;
    const double umax = velocity(H / 2);
    r.for_owned(r.model->V(0), [&](real v, double, double y, double) {
      out.error = std::fmax(out.error, std::fabs(v - velocity(y)) / umax);
    });
    r.for_owned(r.model->V(1), [&](real v, double, double, double) { EXPECT_NEAR(v, 0, 1e-9); });
    r.for_owned(r.model->mu(), [&](real m, double, double, double) {
      out.mu_min = std::fmin(out.mu_min, m), out.mu_max = std::fmax(out.mu_max, m);
    });
    return out;
  }
};

// The profile for n = 1, 3, 5 at three resolutions: second order (observed order >= 1.8 between
// each pair), and the finest error within a bound (about 1.5x the measured one). n = 3 and 5 cap
// the viscosity at 4 eta0, 4x the viscosity at the wall (a Newtonian core, in the analytical
// profile too, within |y - H/2| < H/4 (n = 3), 0.35 H (n = 5)): uncapped, the viscosity at the
// centre grows without bound (eps_II -> 0) and the PT iterations with it; they grow with the
// contrast (~100 n_y at 2, ~230 n_y at 4, ~900 n_y at 16: the stiff core is a slow mode, as a
// strong inclusion is). The errors are those of the discrete equations solved exactly (a 1-D
// reduction of the same stencils in numpy gives the same numbers to 3 digits); n = 5 is
// pre-asymptotic on coarser grids (order 1.64 from 32 to 64 rows), hence its finer levels.
TEST(PowerLaw, ChannelProfileConvergesAtSecondOrder) {
  struct Case {
    double n;
    int rows;  // the coarsest level; then twice and four times as many
    double bound;
  };
  for (const Case c : {Case{1, 32, 1e-4}, Case{3, 32, 2e-3}, Case{5, 56, 3e-3}}) {
    Channel ch;
    ch.n = c.n;
    if (c.n > 1) ch.eta_max = 4 * ch.eta0;
    double e[3];
    std::string record;
    for (int l = 0; l < 3; ++l) {
      const int rows = c.rows << l;
      const Channel::Result r = ch.run(rows);
      e[l] = r.error;
      record += "ny=" + std::to_string(rows) + " it=" + std::to_string(r.iterations) +
                " err=" + std::to_string(r.error) + "; ";
    }
    RecordProperty("n" + std::to_string(int(c.n)), record);
    std::printf("n=%g: %s orders %.3f %.3f\n", c.n, record.c_str(), std::log2(e[0] / e[1]),
                std::log2(e[1] / e[2]));
    EXPECT_GE(std::log2(e[0] / e[1]), 1.8) << "n = " << c.n;
    EXPECT_GE(std::log2(e[1] / e[2]), 1.8) << "n = " << c.n;
    EXPECT_LE(e[2], c.bound) << "n = " << c.n;
  }
}

// Both caps active (n = 3: a Newtonian core at eta_max, Newtonian wall layers at eta_min, which
// is above the initial eta0 = 1): every viscosity lies within the caps (exactly: the update caps
// what it writes), both are reached (to the tolerance: the relaxation approaches them
// geometrically), and the profile still matches the capped analytical one.
TEST(PowerLaw, CapsBoundTheViscosity) {
  Channel ch;
  ch.n = 3;
  ch.eta_min = 2, ch.eta_max = 4;
  const Channel::Result r = ch.run(64);
  RecordProperty("error", std::to_string(r.error));
  EXPECT_GE(r.mu_min, ch.eta_min);
  EXPECT_LE(r.mu_max, ch.eta_max);
  EXPECT_NEAR(r.mu_min, ch.eta_min, 1e-6);
  EXPECT_NEAR(r.mu_max, ch.eta_max, 1e-6);
  EXPECT_LE(r.error, 5e-3);
}

// A step abandoned within its solve (a stop: Model::abandon_step) goes back to its start, the
// power law's viscosity included (a start copy in the model's field table, as the unknowns'):
// after 400 iterations that moved the viscosity, it is the start's to the bit again.
TEST(PowerLaw, AnAbandonedStepLeavesTheViscosityOfItsStart) {
  Channel ch;
  ch.n = 3;
  ch.eta_min = 2, ch.eta_max = 4;
  StokesRun r(ch.config(32, 1e-9));
  ASSERT_NE(r.model->power_law(), nullptr);
  EXPECT_TRUE(r.model->can_abandon_step());
  const std::vector<real> mu = r.model->mu().to_host(), vx = r.model->V(0).to_host();
  r.model->begin_solve(r.settings.dt);
  r.model->iterate(400);
  ASSERT_NE(r.model->mu().to_host(), mu);
  ASSERT_NE(r.model->V(0).to_host(), vx);
  r.model->abandon_step();
  EXPECT_EQ(r.model->mu().to_host(), mu);
  EXPECT_EQ(r.model->V(0).to_host(), vx);
}

// A power-law model with every exponent 1 allocates nothing (Newtonian, no cost); bad caps are
// rejected naming the key.
TEST(PowerLaw, NewtonianCostsNothingAndBadCapsAreRejected) {
  Channel ch;
  StokesRun r(ch.config(16, 1e-8));
  EXPECT_EQ(r.model->power_law(), nullptr);
  ch.n = 3, ch.eta_min = 10, ch.eta_max = 5;
  EXPECT_NE(error_of([&] { StokesRun bad(ch.config(16, 1e-8)); }).find("stokes.power_law.eta_max"),
            std::string::npos);
}

}  // namespace
}  // namespace staghorn::test
