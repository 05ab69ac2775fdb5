// Verification of the coupled (solid Stokes + Darcy) hydromech variant: the exact 1-D solitary
// wave of the coupled equations (speed, shape, convergence between resolutions), fluid volume
// conservation, input errors.
#include "models/hydromech/coupled.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>

#include "core/decomposition.hpp"
#include "coupled_fixture.hpp"
#include "models/hydromech/solitary_wave.hpp"
#include "models/registry.hpp"
#include "models/run_settings.hpp"
#include "test_support.hpp"

namespace staghorn::test {
namespace {

// The solitary wave of amplitude A in a periodic column along x, porosity phi0 = 1e-3 (small:
// the coupled equations' buoyancy (phi - phi_ref) B is then negligible against B) and a solid
// shear viscosity equal to the bulk one. In 1-D the coupled equations are the reduced ones with
// the bulk viscosity eta0 + 4/3 eta_s: the same wave, of width delta = sqrt(k0 (eta0 + 4/3
// eta_s)), at the same speed c = (2A + 1) k0 B / phi0 (docs/models/hydromech.md). Lengths below
// are in delta, times in T = delta phi0 / (k0 B).
struct Column {
  double A = 3, phi0 = 1e-3, eta_s = 1, L = 40, z0 = 12, t_end = 1;
  double delta() const { return std::sqrt(1 + 4.0 / 3 * eta_s); }
  double T() const { return delta() * phi0; }
  hydromech::SolitaryWave wave() const { return {A}; }

  io::json config(int n, double dt) const {
    const double d = delta();
    return {
        {"grid",
         {{"n", {n, 1, 1}}, {"length", {L * d, 1.0, 1.0}}, {"periodic", {true, false, false}}}},
        {"time", {{"dt", dt * T()}, {"steps", static_cast<int>(std::lround(t_end / dt))}}},
        {"solver", {{"tol", 1e-7}, {"ncheck", 50}}},
        {"hydromech",
         {{"phi0", phi0},
          {"bulk_viscosity", {{"exponent", 0}}},
          {"coupled", {{"shear_viscosity", eta_s}, {"Re", 20.0}, {"r", 1.0}}},
          {"initial", {{"type", "solitary_wave"}, {"amplitude", A}, {"center", {z0 * d, 0, 0}}}}}}};
  }
};

// Centroid (in delta) of the porosity excess within `window` delta of the peak.
double centroid(const CoupledRun& r, const Column& col, double window = 12) {
  const std::vector<real> phi = r.phi();
  const int peak = static_cast<int>(std::max_element(phi.begin(), phi.end()) - phi.begin());
  double m = 0, mz = 0;
  for (std::size_t i = 0; i < phi.size(); ++i) {
    const double z = r.x(static_cast<int>(i)) / col.delta();
    if (std::fabs(z - r.x(peak) / col.delta()) > window) continue;
    m += phi[i] / col.phi0 - 1;
    mz += (phi[i] / col.phi0 - 1) * z;
  }
  return mz / m;
}

// Max |phi/phi0 - exact wave peaked at zc| over the wave's height A - 1.
double shape_error(const CoupledRun& r, const Column& col, double zc) {
  const std::vector<real> phi = r.phi();
  double err = 0;
  for (std::size_t i = 0; i < phi.size(); ++i) {
    double f, P;
    col.wave().at(r.x(static_cast<int>(i)) / col.delta() - zc, f, P);
    err = std::max(err, std::fabs(phi[i] / col.phi0 - f));
  }
  return err / (col.A - 1);
}

TEST(CoupledWave, TravelsAtTwoAPlusOneAndConvergesWithResolution) {
  const Column col;
  std::vector<double> err;
  for (int l = 0; l < 2; ++l) {
    CoupledRun r(col.config(100 << l, 0.05 / (1 << l)));
    const double start = centroid(r, col), v0 = r.diagnostic("fluid_volume");
    r.run();
    const double speed = (centroid(r, col) - start) / col.t_end;
    err.push_back(shape_error(r, col, col.z0 + col.wave().speed() * col.t_end));
    RecordProperty("speed_" + std::to_string(100 << l), std::to_string(speed));
    if (l == 1) {
      EXPECT_NEAR(speed / col.wave().speed(), 1, 0.02) << "measured speed " << speed;
      EXPECT_LT(shape_error(r, col, centroid(r, col)), 0.05);
    }
    // Fluid volume: what the compaction takes from the pores, the Darcy flux carries on; the
    // balance telescopes up to the fluid residual left at solver.tol (~3e-10 per step here).
    EXPECT_NEAR(r.diagnostic("fluid_volume") / v0, 1, 1e-7);
    EXPECT_LT(r.diagnostic("balance_error"), 1e-9);
  }
  RecordProperty("errors", std::to_string(err[0]) + " " + std::to_string(err[1]));
  const double order = std::log2(err[0] / err[1]);
  EXPECT_GT(order, 0.8) << "errors " << err[0] << " " << err[1];  // backward Euler: first order
  EXPECT_LT(order, 1.6);
}

// The two-phase system at a small porosity is its small-porosity limit: phi0 = 1e-4 travels at
// c = 2A + 1 (the factors 1 - phi and the solid's advection of the porosity are of order phi).
TEST(CoupledWave, TwoPhaseAtSmallPorosityKeepsTheLimitSpeed) {
  Column col;
  col.phi0 = 1e-4;
  io::json c = col.config(200, 0.025);
  c["hydromech"]["coupled"]["physics"] = "two_phase";
  CoupledRun r(c);
  const double start = centroid(r, col);
  r.run();
  const double speed = (centroid(r, col) - start) / col.t_end;
  RecordProperty("speed", std::to_string(speed));
  EXPECT_NEAR(speed / col.wave().speed(), 1, 0.005) << "measured speed " << speed;
}

// A blob rising in a closed 2-D box (no Darcy flux through any side, free-slip walls), bulk
// viscosity ~ 1/phi: the fluid volume stays, the porosity excess rises.
io::json closed_box() {
  io::json sides;
  for (const char* side : {"x_lo", "x_hi", "y_lo", "y_hi"}) sides[side]["type"] = "closed";
  return {{"grid", {{"n", {16, 32, 1}}, {"length", {10.0, 20.0, 1.0}}}},
          {"time", {{"dt", 0.005}, {"steps", 4}}},
          {"solver", {{"tol", 1e-8}, {"ncheck", 50}}},
          {"hydromech",
           {{"phi0", 0.01},
            {"coupled", {{"r", 1.0}}},
            {"boundary", sides},
            {"initial",
             {{"type", "gaussian"}, {"amplitude", 2}, {"sigma", 1.5}, {"center", {5, 5, 0}}}}}}};
}

TEST(CoupledFluidVolume, ConservedInAClosedBoxWhileTheBlobRises) {
  CoupledRun r(closed_box());
  const double v0 = r.diagnostic("fluid_volume"), z0 = r.diagnostic("excess_centroid");
  r.run();
  char drift[32];
  std::snprintf(drift, sizeof drift, "%.3e", r.diagnostic("fluid_volume") / v0 - 1);
  RecordProperty("volume_drift", drift);
  EXPECT_NEAR(r.diagnostic("fluid_volume") / v0, 1, 1e-8);
  EXPECT_LT(r.diagnostic("balance_error"), 1e-9);
  EXPECT_GT(r.diagnostic("excess_centroid"), z0 + 0.1);  // buoyant fluid carries porosity up
  EXPECT_GT(r.diagnostic("solid_velocity_max"), 0);      // and the matrix deforms
  for (const char* e :
       {"residual_momentum_x", "residual_momentum_y", "residual_solid_mass", "residual_fluid_mass"})
    EXPECT_LT(r.diagnostic(e), 1e-8) << e;
}

// 100 steps of the two-phase system with a porosity- and strain-rate-dependent shear viscosity:
// a blob rises through a 2-D box with solid walls (free slip: no solid crosses them), open to the
// fluid at the top and bottom: the buoyant fluid enters below and leaves above. Each step, the
// fluid volume changes by what the Darcy flux carries out net (with rigid walls the mixture
// keeps its volume: out and in nearly balance) and the solid volume not at all, both up to the
// residuals the solver leaves (the steps' balance errors): summed over the run, to the solver's
// tolerance.
TEST(CoupledVolumes, SolidAndFluidBalancedByWhatCrossesTheSidesOverAHundredSteps) {
  io::json c = closed_box();
  c["grid"]["n"] = {12, 24, 1};
  c["time"] = {{"dt", 0.002}, {"steps", 100}};
  c["hydromech"]["phi0"] = 0.05;
  c["hydromech"]["boundary"].erase("y_lo");  // open (pf = 0)
  c["hydromech"]["boundary"].erase("y_hi");
  c["hydromech"]["coupled"] = {
      {"physics", "two_phase"},
      {"porosity_weakening", 10},
      {"power_law", {{"n", 3}, {"eps_ref", 0.1}, {"eta_min", 0.1}, {"eta_max", 10}}}};
  CoupledRun r(c);
  const double fluid0 = r.diagnostic("fluid_volume"), solid0 = r.diagnostic("solid_volume");
  double carried = 0, entered = 0, fluid_bound = 0, solid_bound = 0, v_max = 0;
  for (int step = 0; step < 100; ++step) {
    r.model->advance(r.settings.dt);
    carried += r.settings.dt * (r.diagnostic("fluid_outflow") - r.diagnostic("fluid_inflow"));
    entered += r.settings.dt * r.diagnostic("fluid_inflow");
    fluid_bound += r.diagnostic("balance_error") * r.diagnostic("fluid_volume");
    solid_bound += r.diagnostic("solid_balance_error") * r.diagnostic("solid_volume");
    v_max = std::max(v_max, r.diagnostic("solid_velocity_max"));
  }
  const double fluid_gap = r.diagnostic("fluid_volume") - fluid0 + carried;
  const double solid_gap = r.diagnostic("solid_volume") - solid0;
  char record[200];
  std::snprintf(record, sizeof record,
                "fluid: entered %.3e, carried out net %.3e, gap %.3e (bound %.3e); solid: gap "
                "%.3e (bound %.3e)",
                entered, carried, fluid_gap, fluid_bound, solid_gap, solid_bound);
  RecordProperty("balance", record);
  std::printf("%s\n", record);
  EXPECT_GT(entered, 1e3 * fluid_bound);  // fluid does cross the sides
  EXPECT_GT(v_max, 0);                    // and the solid carries porosity
  const double roundoff = 1e-12 * fluid0;
  EXPECT_LE(std::fabs(fluid_gap), fluid_bound + roundoff);
  EXPECT_LE(std::fabs(solid_gap), solid_bound + 1e-12 * solid0);
  EXPECT_LT(fluid_bound / fluid0, 1e-6);  // the solver's tolerance (1e-8 per step)
  EXPECT_LT(solid_bound / solid0, 1e-6);
}

// The chimney diagnostics on a porosity set by hand: a column 4 cells (2 lengths) wide whose
// porosity falls linearly with height, 0.1 - 0.005 z, through the threshold 0.04 at z = 12 (between
// two cell centres: the front is interpolated, exact for a linear profile); its width measured at
// half the height above the base 2, z = 7.
TEST(CoupledChimney, FrontAtTheThresholdCrossingAndWidthAtHalfHeight) {
  io::json c = closed_box();
  c["grid"]["n"] = {20, 40, 1};
  c["hydromech"]["chimney"] = {{"threshold", 0.04}, {"base", 2.0}};
  CoupledRun r(c);
  Field& phi = *r.model->state_fields()[0];
  ASSERT_EQ(phi.name(), "phi");
  std::vector<real> v = phi.to_host();
  const Layout& L = phi.layout();
  for (int j = 0; j < L.n.y; ++j)
    for (int i = 0; i < L.n.x; ++i) {
      const double x = r.settings.grid.coordinate(Location::cell, 0, i);
      const double z = r.settings.grid.coordinate(Location::cell, 1, j);
      v[L.index(i, j, 0)] = x > 4 && x < 6 ? 0.1 - 0.005 * z : 0.01;
    }
  phi.from_host(v);
  r.model->refresh();
  EXPECT_NEAR(r.diagnostic("front_height"), 12.0, 1e-12);
  EXPECT_NEAR(r.diagnostic("chimney_width"), 2.0, 1e-12);

  // A porous patch detached above the column (as the open top's decompaction makes) is not the
  // front; a column detached from the base is (the run starts at its bottom); a column pinched
  // off at z in (6, 8) ends below the gap, between the centres 5.75 and 6.25.
  for (int j = 0; j < L.n.y; ++j)
    for (int i = 0; i < L.n.x; ++i) {
      const double x = r.settings.grid.coordinate(Location::cell, 0, i);
      const double z = r.settings.grid.coordinate(Location::cell, 1, j);
      if (x < 2 && z > 16) v[L.index(i, j, 0)] = 0.1;
    }
  phi.from_host(v);
  r.model->refresh();
  EXPECT_NEAR(r.diagnostic("front_height"), 12.0, 1e-12);
  for (int j = 0; j < L.n.y; ++j)
    for (int i = 0; i < L.n.x; ++i)
      if (r.settings.grid.coordinate(Location::cell, 1, j) < 5) v[L.index(i, j, 0)] = 0.01;
  phi.from_host(v);
  r.model->refresh();
  EXPECT_NEAR(r.diagnostic("front_height"), 12.0, 1e-12);
  for (int j = 0; j < L.n.y; ++j)
    for (int i = 0; i < L.n.x; ++i)
      if (std::fabs(r.settings.grid.coordinate(Location::cell, 1, j) - 7) < 1)
        v[L.index(i, j, 0)] = 0.01;
  phi.from_host(v);
  r.model->refresh();
  const double below = 0.1 - 0.005 * 5.75;  // the column's last plane under the gap
  EXPECT_NEAR(r.diagnostic("front_height"), 5.75 + 0.5 * (below - 0.04) / (below - 0.01), 1e-12);
}

// Maxwell shear rheology: a stiff elastic matrix (G dt >> eta_s) behaves as the viscous one; a
// soft one (G dt = eta_s / 4: eta_ve = eta_s / 5) lets the porosity move differently.
TEST(CoupledShear, StiffMaxwellMatrixIsViscousSoftOneIsNot) {
  auto phi_after = [](double G) {
    io::json c = closed_box();
    c["time"]["steps"] = 2;
    c["hydromech"]["coupled"]["shear_modulus"] = G;
    CoupledRun r(c);
    r.run();
    return interior_values(r.model->phi());
  };
  const std::vector<real> viscous = phi_after(0), stiff = phi_after(1e9), soft = phi_after(50);
  double d_stiff = 0, d_soft = 0;
  for (std::size_t i = 0; i < viscous.size(); ++i) {
    d_stiff = std::max(d_stiff, std::fabs(stiff[i] - viscous[i]) / 0.01);
    d_soft = std::max(d_soft, std::fabs(soft[i] - viscous[i]) / 0.01);
  }
  RecordProperty("differences", std::to_string(d_stiff) + " " + std::to_string(d_soft));
  EXPECT_LT(d_stiff, 1e-5);
  EXPECT_GT(d_soft, 1e-3);
}

// Strong decompaction weakening (R = 1000) at small porosity: C' = w / eta_phi is large where the
// blob decompacts and the exchange's slowest mode alone left the fluid's steps there nearly
// undamped (NaN within 200 iterations); with the domain's Darcy mode at min(k, k0) the step
// converges within the 60 n_z per step that the R x phi0 table allows (the 3-D blob example's
// set-up at 24 x 24 x 48, its first step).
TEST(CoupledDamping, StrongDecompactionWeakeningConvergesWithinSixtyNz) {
  const int nz = 48;
  CoupledRun r({{"grid", {{"n", {24, 24, nz}}, {"length", {10.0, 10.0, 20.0}}}},
                {"time", {{"dt", 0.002}, {"steps", 1}}},
                {"solver", {{"tol", 1e-5}, {"ncheck", 200}, {"max_iter", 60 * nz}}},
                {"hydromech",
                 {{"phi0", 0.01},
                  {"bulk_viscosity",
                   {{"exponent", 1}, {"decompaction_weakening", 1000}, {"smoothing", 0.05}}},
                  {"coupled", {{"shear_viscosity", 1.0}}},
                  {"boundary",
                   {{"x_lo", {{"type", "closed"}}},
                    {"x_hi", {{"type", "closed"}}},
                    {"y_lo", {{"type", "closed"}}},
                    {"y_hi", {{"type", "closed"}}}}},
                  {"initial",
                   {{"type", "gaussian"},
                    {"amplitude", 2.0},
                    {"sigma", 1.0},
                    {"aspect", {1.0, 1.0, 0.5}},
                    {"center", {5.0, 5.0, 4.0}}}}}}});
  const long long iterations = r.run();
  RecordProperty("iterations", static_cast<int>(iterations));
  EXPECT_LE(iterations, 60 * nz);
  for (const char* e :
       {"residual_momentum_x", "residual_momentum_z", "residual_solid_mass", "residual_fluid_mass"})
    EXPECT_LT(r.diagnostic(e), 1e-5) << e;
}

TEST(CoupledConfig, NamesTheKeysItCannotUse) {
  io::json c = Column{}.config(64, 0.1);
  io::json relative = c;
  relative["solver"]["tol_mode"] = "relative";
  relative["model"] = "hydromech";
  relative["hydromech"]["variant"] = "coupled";
  const ModelInfo& info = find_model("hydromech");
  EXPECT_NE(error_of([&] {
              const io::json cfg = schema_for(info).resolve(relative);
              const RunSettings s = RunSettings::from(cfg);
              Decomposition dec(s.grid, Comm(), s.dims);
              Exec ex = Exec::cpu();
              info.create(ModelContext{cfg, s, dec, ex});
            }).find("solver.tol_mode"),
            std::string::npos);
  c["hydromech"]["coupled"]["reference_porosity"] =
      0.001;  // a periodic column balances only its mean
  EXPECT_NE(error_of([&] { CoupledRun r(c); }).find("hydromech.coupled.reference_porosity"),
            std::string::npos);
  c["hydromech"]["coupled"].erase("reference_porosity");
  c["hydromech"]["coupled"]["shear_modulus"] = 1.0;
  EXPECT_NE(error_of([&] { CoupledRun r(c); }).find("hydromech.coupled.shear_modulus"),
            std::string::npos);
}

// The two-phase system's inputs: each refusal names its key.
TEST(CoupledConfig, TwoPhaseNamesWhatItRefuses) {
  auto refused = [](const std::function<void(io::json&)>& edit) {
    io::json c = closed_box();
    c["hydromech"]["coupled"]["physics"] = "two_phase";
    edit(c);
    return error_of([&] { CoupledRun r(c); });
  };
  auto names = [](const std::string& error, const std::string& key) {
    return error.find(key) != std::string::npos;
  };
  EXPECT_TRUE(names(refused([](io::json& c) { c["hydromech"]["phi0"] = 1.0; }), "hydromech.phi0"));
  EXPECT_TRUE(names(refused([](io::json& c) { c["hydromech"]["initial"]["amplitude"] = 150; }),
                    "hydromech.initial"));
  EXPECT_TRUE(names(refused([](io::json& c) { c["hydromech"]["coupled"]["power_law"]["n"] = -2; }),
                    "hydromech.coupled.power_law.n"));
  EXPECT_TRUE(
      names(refused([](io::json& c) { c["hydromech"]["coupled"]["porosity_weakening"] = -1; }),
            "hydromech.coupled.porosity_weakening"));
  EXPECT_TRUE(names(refused([](io::json& c) {
                      c["hydromech"]["coupled"]["power_law"] = {{"eta_min", 2}, {"eta_max", 1}};
                    }),
                    "hydromech.coupled.power_law.eta_max"));
  EXPECT_TRUE(names(refused([](io::json& c) {
                      c["hydromech"]["coupled"]["bulk_power_law"] = true;  // without a power law
                    }),
                    "hydromech.coupled.bulk_power_law"));
  EXPECT_TRUE(names(refused([](io::json& c) {
                      c["hydromech"]["materials"]["phases"] = {{{"shape", "layer"},
                                                                {"normal", {0, 1, 0}},
                                                                {"from", 30},
                                                                {"to", 40},
                                                                {"porosity", 0.03}}};
                    }),
                    "hydromech.materials.phases[0]"));
  EXPECT_TRUE(names(refused([](io::json& c) {
                      c["hydromech"]["density"] = {{"solid", 1.0}, {"fluid", 2.0}};
                      c["hydromech"]["gravity"] = 1.0;
                    }),
                    "hydromech.density.fluid"));
  EXPECT_TRUE(names(refused([](io::json& c) {
                      c["hydromech"]["buoyancy"] = 1.0;
                      c["hydromech"]["gravity"] = 1.0;
                    }),
                    "hydromech.buoyancy"));
}

// The pipe study's set-up, small: a porous reservoir layer (phi = 0.06 below z = 3) under an
// overburden at phi0 = 0.02, a blob at its top; decompaction weakening, a porosity-weakened power
// law; open to the fluid at the bottom and the top (pf = 0).
io::json small_pipe(const std::string& predictor, bool level) {
  return {{"grid", {{"n", {16, 32, 1}}, {"length", {8.0, 16.0, 1.0}}}},
          {"time", {{"dt", 4e-4}, {"steps", 20}}},
          {"solver", {{"tol", 1e-5}, {"ncheck", 50}}},
          {"hydromech",
           {{"phi0", 0.02},
            {"density", {{"solid", 2.0}, {"fluid", 1.0}}},
            {"gravity", 1.0},
            {"bulk_viscosity", {{"decompaction_weakening", 20}, {"smoothing", 0.2}}},
            {"coupled",
             {{"porosity_weakening", 20},
              {"power_law", {{"n", 3}, {"eps_ref", 0.1}, {"eta_min", 0.1}, {"eta_max", 10}}},
              {"predictor", predictor},
              {"level_correction", level}}},
            {"boundary", {{"x_lo", {{"type", "closed"}}}, {"x_hi", {{"type", "closed"}}}}},
            {"materials",
             {{"phases",
               {{{"shape", "layer"},
                 {"normal", {0, 1, 0}},
                 {"from", -1.0},
                 {"to", 3.0},
                 {"porosity", 0.06}}}}}},
            {"initial",
             {{"type", "gaussian"},
              {"amplitude", 1.0},
              {"sigma", 0.4},
              {"center", {4.0, 3.0, 0.0}}}}}}};
}

// The level correction at a step's start shifts p and pf by the one constant that zeroes the
// domain's volume balance (the sum of the solid and fluid mass residuals): without it the first
// iterate of the pipe loses volume through its open sides.
TEST(CoupledAcceleration, LevelCorrectionBalancesTheDomainsVolume) {
  CoupledRun off(small_pipe("none", false)), on(small_pipe("none", true));
  off.model->begin_solve(off.settings.dt);
  on.model->begin_solve(on.settings.dt);
  const double before = off.model->volume_balance(), after = on.model->volume_balance();
  RecordProperty("before", std::to_string(before));
  RecordProperty("after", std::to_string(after));
  EXPECT_GT(std::fabs(before), 1e-3);
  EXPECT_LT(std::fabs(after), 1e-10 * std::fabs(before));
  // Pressure differences do not move: the porosity of the first iterate is the same.
  EXPECT_NEAR(on.diagnostic("phi_max"), off.diagnostic("phi_max"), 1e-15);
}

// The predictor (each step starts from v, p and pf extrapolated from the last step) and the level
// correction change where the iterations start and how fast the slowest mode goes, not the
// steps' solutions: 20 steps of the small pipe end at the same porosity and pressures to within
// what the tolerance leaves, in far fewer iterations.
TEST(CoupledAcceleration, SameStepsInFewerIterations) {
  CoupledRun plain(small_pipe("none", false)), fast(small_pipe("linear", true));
  const long long plain_iterations = plain.run(), fast_iterations = fast.run();
  RecordProperty("plain", static_cast<int>(plain_iterations));
  RecordProperty("accelerated", static_cast<int>(fast_iterations));
  EXPECT_LT(fast_iterations, 0.7 * plain_iterations);
  const std::vector<real> a = interior_values(plain.model->phi()),
                          b = interior_values(fast.model->phi());
  const std::vector<real> pa = interior_values(plain.model->Pf()),
                          pb = interior_values(fast.model->Pf());
  double dphi = 0, dpf = 0, pf_range = 0;
  for (std::size_t q = 0; q < a.size(); ++q) {
    dphi = std::max(dphi, std::fabs(double(a[q] - b[q])));
    dpf = std::max(dpf, std::fabs(double(pa[q] - pb[q])));
    pf_range = std::max(pf_range, std::fabs(double(pa[q])));
  }
  RecordProperty("phi_difference", std::to_string(dphi));
  RecordProperty("pf_difference", std::to_string(dpf));
  std::printf("iterations %lld -> %lld, max |dphi| %.3e, max |dpf| %.3e (max |pf| %.3e)\n",
              plain_iterations, fast_iterations, dphi, dpf, pf_range);
  EXPECT_GT(dphi, 0);  // the runs did differ
  // A mass residual within tol moves a step's porosity by up to dt tol: 20 steps of it, five-fold.
  const double tol = 1e-5;
  EXPECT_LT(dphi, 5 * 20 * plain.settings.dt * tol);
  EXPECT_LT(dpf, 1e-3 * pf_range);
}

}  // namespace
}  // namespace staghorn::test
