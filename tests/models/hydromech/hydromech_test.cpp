// Verification of the hydromech model: the exact 1-D solitary porosity wave (shape, speed,
// convergence), fluid volume conservation, input errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <utility>
#include <vector>

#include "hydromech_fixture.hpp"
#include "models/hydromech/config.hpp"
#include "models/hydromech/kernels.hpp"
#include "models/hydromech/solitary_wave.hpp"
#include "test_support.hpp"

namespace staghorn::test {
namespace {

// A solitary wave of amplitude A (c = 2A + 1) in scaled units on a periodic column of length L,
// gravity along x (1-D), started at z0 and run to t_end with dt ~ dx.
struct Column {
  double A = 3, L = 60, z0 = 15, t_end = 2;
  hydromech::SolitaryWave wave() const { return {A}; }

  io::json config(int n, double dt) const {
    return {
        {"grid", {{"n", {n, 1, 1}}, {"length", {L, 1.0, 1.0}}, {"periodic", {true, false, false}}}},
        {"time", {{"dt", dt}, {"steps", static_cast<int>(std::lround(t_end / dt))}}},
        {"solver", {{"tol", 1e-8}, {"ncheck", 50}}},
        {"hydromech",
         {{"bulk_viscosity", {{"exponent", 0}}},
          {"initial", {{"type", "solitary_wave"}, {"amplitude", A}, {"center", {z0, 0, 0}}}}}}};
  }
};

// Centroid of the porosity excess over the background (1) along x, within `window` of the peak
// (the periodic images of the far tails stay out).
double centroid(const HydroMechRun& r, double window = 15) {
  const std::vector<real> phi = interior_values(r.model->phi());
  const int peak = static_cast<int>(std::max_element(phi.begin(), phi.end()) - phi.begin());
  double m = 0, mz = 0;
  for (std::size_t i = 0; i < phi.size(); ++i) {
    const double z = r.x(0, static_cast<int>(i));
    if (std::fabs(z - r.x(0, peak)) > window) continue;
    m += phi[i] - 1;
    mz += (phi[i] - 1) * z;
  }
  return mz / m;
}

// Max |phi - exact wave peaked at zc| relative to the wave's height A - 1.
double shape_error(const HydroMechRun& r, const hydromech::SolitaryWave& w, double zc) {
  const std::vector<real> phi = interior_values(r.model->phi());
  double err = 0;
  for (std::size_t i = 0; i < phi.size(); ++i) {
    double f, P;
    w.at(r.x(0, static_cast<int>(i)) - zc, f, P);
    err = std::max(err, std::fabs(phi[i] - f));
  }
  return err / (w.A - 1);
}

TEST(SolitaryWave, AnalyticalProfileSolvesTheTravellingWaveEquation) {
  // c f'' = (c f + 1 - c) / f^3 - 1, the once-integrated wave equation, by finite differences.
  const hydromech::SolitaryWave w{3};
  const double c = w.speed(), h = 1e-3;
  for (double z : {-4.0, -1.5, -0.3, 0.7, 2.0, 5.0}) {
    double fm, f0, fp, P;
    w.at(z - h, fm, P), w.at(z + h, fp, P), w.at(z, f0, P);
    const double lhs = c * (fp - 2 * f0 + fm) / (h * h);
    EXPECT_NEAR(lhs, (c * f0 + 1 - c) / (f0 * f0 * f0) - 1, 1e-5) << "at z = " << z;
    EXPECT_NEAR(P, c * (fp - fm) / (2 * h), 1e-6) << "P = c f' at z = " << z;
  }
}

TEST(SolitaryWave, KeepsShapeAndTravelsAtTwoAPlusOne) {
  const Column col;
  HydroMechRun r(col.config(300, 0.02));  // dx = 0.2 compaction lengths
  const double start = centroid(r);
  EXPECT_NEAR(start, col.z0, 2e-3);  // the window ends on cells, not symmetric
  r.run();
  const double speed = (centroid(r) - start) / col.t_end;
  const double shape = shape_error(r, col.wave(), centroid(r));
  RecordProperty("speed", std::to_string(speed));
  RecordProperty("shape_error", std::to_string(shape));
  EXPECT_NEAR(speed / col.wave().speed(), 1, 0.02) << "measured speed " << speed;
  EXPECT_LT(shape, 0.05);
  EXPECT_NEAR(r.diagnostic("phi_max"), col.A, 0.03 * col.A);
}

TEST(SolitaryWave, ErrorConvergesAtFirstOrderWithDtProportionalToDx) {
  Column col;
  col.t_end = 1;
  std::vector<double> e;
  for (int l = 0; l < 2; ++l) {
    HydroMechRun r(col.config(150 << l, 0.04 / (1 << l)));
    r.run();
    e.push_back(shape_error(r, col.wave(), col.z0 + col.wave().speed() * col.t_end));
  }
  RecordProperty("errors", std::to_string(e[0]) + " " + std::to_string(e[1]));
  const double order = std::log2(e[0] / e[1]);
  EXPECT_GT(order, 0.8);  // backward Euler in time: first order
  EXPECT_LT(order, 1.5);
  EXPECT_LT(e[1], 0.1);
}

// Accelerated PT: iterations per step grow like n (the pseudo-step follows the compaction length
// in cells), not like n^2 as plain (first-order) pseudo-transient iterations would.
TEST(SolitaryWave, IterationsGrowAtMostLinearlyWithResolution) {
  const Column col;
  std::vector<double> its;
  for (int n : {150, 300, 600}) {
    io::json c = col.config(n, 0.02);
    c["solver"]["ncheck"] = 10;
    HydroMechRun r(c);
    its.push_back(static_cast<double>(r.run(1)));
  }
  RecordProperty("iterations", std::to_string(its[0]) + " " + std::to_string(its[1]) + " " +
                                   std::to_string(its[2]));
  EXPECT_LT(its[1] / its[0], 2.5);
  EXPECT_LT(its[2] / its[1], 2.5);
}

TEST(FluidVolume, ConservedInAPeriodicColumn) {
  const Column col;
  HydroMechRun r(col.config(150, 0.04));
  const double v0 = r.diagnostic("fluid_volume");
  r.run(20);
  EXPECT_NEAR(r.diagnostic("fluid_volume") / v0, 1, 1e-9);
  EXPECT_LT(r.diagnostic("balance_error"), 1e-10);
}

io::json closed_sides() {
  io::json b;
  for (const char* side : {"x_lo", "x_hi", "y_lo", "y_hi"}) b[side]["type"] = "closed";
  return b;
}

// A blob rising in a closed 2-D box, bulk viscosity ~ 1/phi with decompaction weakening.
io::json closed_box() {
  return {{"grid", {{"n", {32, 64, 1}}, {"length", {20.0, 40.0, 1.0}}}},
          {"time", {{"dt", 0.2}, {"steps", 10}}},
          {"solver", {{"tol", 1e-8}, {"ncheck", 50}}},
          {"hydromech",
           {{"bulk_viscosity", {{"decompaction_weakening", 10}}},
            {"boundary", closed_sides()},
            {"initial",
             {{"type", "gaussian"}, {"amplitude", 2}, {"sigma", 2}, {"center", {10, 10, 0}}}}}}};
}

TEST(FluidVolume, ConservedInAClosedBoxWhileTheBlobRises) {
  HydroMechRun r(closed_box());
  const double v0 = r.diagnostic("fluid_volume"), z0 = r.diagnostic("excess_centroid");
  r.run();
  char drift[32];
  std::snprintf(drift, sizeof drift, "%.3e", r.diagnostic("fluid_volume") / v0 - 1);
  RecordProperty("volume_drift", drift);
  EXPECT_NEAR(r.diagnostic("fluid_volume") / v0, 1, 1e-8);
  EXPECT_GT(r.diagnostic("excess_centroid"), z0 + 0.5);  // buoyant fluid carries porosity up
  EXPECT_LT(r.diagnostic("residual_Pe"), 1e-6);
}

TEST(Config, SolitaryWaveNamesTheKeyItCannotUse) {
  io::json c = Column{}.config(64, 0.1);
  c["hydromech"]["bulk_viscosity"]["exponent"] = 1;
  EXPECT_NE(error_of([&] { HydroMechRun r(c); }).find("hydromech.bulk_viscosity.exponent"),
            std::string::npos);
}

// The fluid residual of the cell at an open (dirichlet) side with the model's ghosts, minus the
// same stencil with the exact fields in the ghosts: the truncation error the ghosts add there. A
// column open at the bottom (Pe = 0; the Pe below is odd about it, so its mirrored ghost is exact)
// with a porosity sloping at the side. phi_old's ghost copied from the inside (zero gradient)
// makes the face permeability first order and this difference O(1) (0.489, 0.485, 0.482 at 16, 32,
// 64 cells); the extrapolated ghost (boundary.hpp) makes it O(h) (0.064, 0.033, 0.017).
TEST(OpenSide, GhostPorosityKeepsTheBoundaryFluxConsistent) {
  const double L = 8, q = M_PI / L;
  auto phi = [&](double z) { return 1 + 0.5 * std::sin(q * z + 0.3); };
  auto Pe = [&](double z) { return 0.5 * std::sin(1.5 * q * z); };
  std::vector<double> diff;
  for (int n : {16, 32, 64}) {
    HydroMechRun r({{"grid", {{"n", {n, 1, 1}}, {"length", {L, 1.0, 1.0}}}},
                    {"time", {{"dt", 0.1}, {"steps", 1}}},
                    {"hydromech", {{"boundary", {{"x_hi", {{"type", "closed"}}}}}}}});
    Field& f = *r.model->state_fields()[0];
    Field& P = *r.model->state_fields()[1];
    for (auto [field, exact] :
         {std::pair<Field*, std::function<double(double)>>{&f, phi}, {&P, Pe}}) {
      std::vector<real> h = field->to_host();
      for (int i = 0; i < n; ++i) h[field->layout().index(i, 0, 0)] = exact(r.x(0, i));
      field->from_host(h);
    }
    r.model->refresh();
    hydromech::Coefficients co{hydromech::material_from(r.config), 0.1, {}, {}, 0, 0, 0.5f};
    co.rdt = 1 / co.dt;
    co.rdx[0] = n / L;
    co.body[0] = co.mat.buoyancy;
    const hydromech::CellResidual<1> R{co, P.view(), f.view(), 1, false};
    const double with_model_ghosts = R(0, 0, 0);
    for (auto [field, exact] :
         {std::pair<Field*, std::function<double(double)>>{&f, phi}, {&P, Pe}}) {
      std::vector<real> h = field->to_host();
      h[field->layout().index(-1, 0, 0)] = exact(r.x(0, -1));
      field->from_host(h);
    }
    diff.push_back(std::fabs(with_model_ghosts - R(0, 0, 0)));
    std::printf("n = %d: boundary cell residual %.4e, ghost truncation %.3e\n", n,
                with_model_ghosts, diff.back());
  }
  for (std::size_t l = 0; l + 1 < diff.size(); ++l)
    EXPECT_GT(std::log2(diff[l] / diff[l + 1]), 0.8) << l;
}

// The decompaction switch: w falls from R (decompaction) to 1 (compaction), the compaction rate
// Pe w(Pe) grows with Pe for every R (the tanh switches the viscosity; a tanh in w itself makes it
// fall just above the switch once R > ~12), and Weakening's slope is the rate's derivative, which
// the coupled variant's pseudo-steps take as the exchange's Jacobian.
TEST(DecompactionSwitch, CompactionRateGrowsWithPeAndSlopeIsItsDerivative) {
  for (double R : {2.0, 12.0, 100.0, 1000.0, 1e6}) {
    hydromech::Material m;
    m.weakening = R;
    m.smoothing = 0.05;
    m.rsmoothing = 1 / m.smoothing;
    EXPECT_NEAR(m.weakening_factor(-60 * m.smoothing), R, 1e-12 * R);
    EXPECT_NEAR(m.weakening_factor(60 * m.smoothing), 1, 1e-12);
    double w_prev = 2 * R, rate_prev = -1e300;
    for (int i = -4000; i <= 4000; ++i) {
      const double Pe = i * 1e-3 * m.smoothing;  // y from -4 to 4
      const hydromech::Weakening wk = m.weakening_of(Pe);
      ASSERT_LE(wk.w, w_prev) << "R " << R << " Pe " << Pe;
      ASSERT_GT(Pe * wk.w, rate_prev) << "R " << R << " Pe " << Pe;
      ASSERT_GE(wk.slope, 0.7 * wk.w) << "R " << R << " Pe " << Pe;
      const double h = 1e-6 * m.smoothing;
      const double fd = ((Pe + h) * m.weakening_factor(Pe + h) -
                         (Pe - h) * m.weakening_factor(Pe - h)) / (2 * h);
      ASSERT_NEAR(wk.slope, fd, 1e-6 * wk.slope) << "R " << R << " Pe " << Pe;
      w_prev = wk.w;
      rate_prev = Pe * wk.w;
    }
  }
  hydromech::Material sharp;
  sharp.weakening = 100;
  EXPECT_EQ(sharp.weakening_of(-1).slope, 100);
  EXPECT_EQ(sharp.weakening_of(1).slope, 1);
}

}  // namespace
}  // namespace staghorn::test
