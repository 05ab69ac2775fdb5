// The stiff bodies' rigid-mode correction (models/stokes/stiff_bodies/body_labels.hpp, rigid_body.hpp): every
// separate stiff inclusion is a body, its projection returns a rigid motion exactly, the
// correction moves the body's faces only, it leaves the converged solution unchanged, and with it
// one 10^4-times and 14 10^6-times stiffer inclusions converge in PT iterations that grow at most
// linearly with n; a body whose rim, not its core, reaches a wall keeps every mode. On a GPU its
// projection gives the CPU's result.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "models/stokes/stiff_bodies/rigid_body.hpp"
#include "stokes_fixture.hpp"
#include "test_support.hpp"

namespace staghorn::test {
namespace {

// A ball (disc in 2-D) 100 times stiffer than the matrix, off the centre of the box.
io::json ball_config(int n, int nz) {
  return {
      {"grid", {{"n", {n, n, nz}}}},
      {"solver", {{"tol", 1e-6}, {"tol_mode", "absolute"}}},
      {"stokes",
       {{"inclusion", {{"radius", 0.2}, {"viscosity", 100.0}, {"center", {0.45, 0.55, 0.5}}}}}}};
}

struct RigidField {
  double U[3], w[3], c[3] = {0, 0, 0};
  // (U + w x (x - c)) along `axis`.
  double operator()(int axis, double x, double y, double z) const {
    const double r[3] = {x - c[0], y - c[1], z - c[2]};
    const int b = (axis + 1) % 3, d = (axis + 2) % 3;
    return U[axis] + w[b] * r[d] - w[d] * r[b];
  }
};

// Velocity fields around the model's: V_old = 0 and V = a rigid motion everywhere.
struct Velocities {
  std::array<Field, 3> V, V_old;
  Velocities(StokesRun& r, const RigidField& f, int dims)
      : V(make(r, "V")), V_old(make(r, "V_old")) {
    for (int a = 0; a < 3; ++a) {
      r.set(V_old[a], [](double, double, double) { return 0.0; });
      r.set(V[a], [&](double x, double y, double z) { return a < dims ? f(a, x, y, z) : 0.0; });
    }
  }
  static std::array<Field, 3> make(StokesRun& r, const std::string& p) {
    const Layout& l = r.model->V(0).layout();
    const Backend b = r.exec.backend();
    return {Field(p + "x", Location::face_x, l, b), Field(p + "y", Location::face_y, l, b),
            Field(p + "z", Location::face_z, l, b)};
  }
};

// The model's bodies, of which there is one; f turns about its centre.
const stokes::RigidBodies& bodies_of(StokesRun& r, RigidField* f = nullptr) {
  const stokes::RigidBodies& b = r.model->rigid_bodies();
  EXPECT_EQ(b.size(), 1u);
  if (f)
    for (int a = 0; a < 3; ++a) f->c[a] = b.centre(0)[a];
  return b;
}

TEST(RigidBody, ProjectionOfARigidMotionIsThatMotion3D) {
  StokesRun r(ball_config(16, 16));
  RigidField f{{0.3, -0.7, 1.1}, {0.5, -1.3, 0.9}};
  const stokes::RigidBodies& bodies = bodies_of(r, &f);
  Velocities v(r, f, 3);
  const stokes::RigidMotion m = bodies.rigid_part(v.V, v.V_old).at(0);
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(m.U[a], f.U[a], 1e-9) << a;
    EXPECT_NEAR(m.w[a], f.w[a], 1e-9) << a;
  }
}

TEST(RigidBody, ProjectionIn2DIsTranslationAndSpin) {
  StokesRun r(ball_config(32, 1));
  RigidField f{{-0.4, 0.8, 0}, {0, 0, 2.5}};
  const stokes::RigidBodies& bodies = bodies_of(r, &f);
  Velocities v(r, f, 2);
  const stokes::RigidMotion m = bodies.rigid_part(v.V, v.V_old).at(0);
  EXPECT_NEAR(m.U[0], f.U[0], 1e-9);
  EXPECT_NEAR(m.U[1], f.U[1], 1e-9);
  EXPECT_NEAR(m.w[2], f.w[2], 1e-9);
  EXPECT_EQ(m.U[2], 0);
  EXPECT_EQ(m.w[0], 0);
  EXPECT_EQ(m.w[1], 0);
}

// correct() adds the correction's rigid motion on the body's faces (a body cell beside them)
// and nowhere else.
TEST(RigidBody, CorrectionMovesTheBodysFacesOnly) {
  StokesRun r(ball_config(32, 1));
  RigidField f{{-0.4, 0.8, 0}, {0, 0, 2.5}};
  const stokes::RigidBodies& bodies = bodies_of(r, &f);
  Velocities v(r, f, 2);
  const stokes::RigidMotion m = bodies.correction(v.V, v.V_old).at(0);
  RigidField g{{m.U[0], m.U[1], 0}, {0, 0, m.w[2]}};
  for (int a = 0; a < 3; ++a) g.c[a] = f.c[a];
  EXPECT_GT(std::fabs(g.U[0]) + std::fabs(g.U[1]) + std::fabs(g.w[2]), 0);
  bodies.correct(v.V, v.V_old);
  const std::vector<real> label = r.model->body_labels()->to_host();
  const Layout& l = r.model->mu().layout();
  const real id = bodies.body(0).id;
  for (int a = 0; a < 2; ++a) {
    const std::vector<real> got = v.V[a].to_host();
    int moved = 0;
    for (int j = 1; j < 32; ++j)
      for (int i = 1; i < 32; ++i) {
        const int back[2] = {a == 0 ? i - 1 : i, a == 1 ? j - 1 : j};
        const bool on = label[l.index(i, j, 0)] == id || label[l.index(back[0], back[1], 0)] == id;
        const double x = r.x(v.V[a].location(), 0, i), y = r.x(v.V[a].location(), 1, j);
        const double expect = f(a, x, y, 0) + (on ? g(a, x, y, 0) : 0);
        ASSERT_NEAR(got[l.index(i, j, 0)], expect, 1e-9) << a << " " << i << " " << j;
        moved += on;
      }
    EXPECT_GT(moved, 200);  // a disc of radius 0.2 and the cells around it at 32^2
  }
}

// The GPU sums the same exactly rounded terms as the CPU: the rigid part of a random (not rigid)
// velocity change is the same on both (the same bits on an H100; the bound leaves room for FMA
// contraction of the terms' products).
TEST(RigidBody, RigidPartOnTheGpuEqualsTheCpus) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  StokesRun cpu(ball_config(24, 24)), gpu(ball_config(24, 24), Exec::cuda(0));
  auto random = [](StokesRun& r) {
    std::mt19937 gen(11);
    std::uniform_real_distribution<double> u(-1, 1);
    Velocities v(r, RigidField{{0, 0, 0}, {0, 0, 0}}, 3);
    for (Field& f : v.V) r.set(f, [&](double, double, double) { return u(gen); });
    return bodies_of(r).rigid_part(v.V, v.V_old).at(0);
  };
  const stokes::RigidMotion c = random(cpu), g = random(gpu);
  double scale = 0;
  for (int a = 0; a < 3; ++a)
    scale = std::fmax(scale, std::fmax(std::fabs(c.U[a]), std::fabs(c.w[a])));
  ASSERT_GT(scale, 0);
  for (int a = 0; a < 3; ++a) {
    std::printf("axis %d: U cpu %.17g gpu %.17g | w cpu %.17g gpu %.17g\n", a, double(c.U[a]),
                double(g.U[a]), double(c.w[a]), double(g.w[a]));
    EXPECT_NEAR(g.U[a], c.U[a], 1e-12 * scale) << a;
    EXPECT_NEAR(g.w[a], c.w[a], 1e-12 * scale) << a;
  }
}

io::json strong_config(int n) {
  return {{"grid", {{"n", {n, n, 1}}}},
          {"solver", {{"tol", 1e-6}, {"tol_mode", "absolute"}, {"ncheck", 100}}},
          {"stokes",
           {{"gravity", {0.0, -1.0, 0.0}},
            {"density", 1.0},
            {"smoothing", 10},
            {"inclusion", {{"radius", 0.15}, {"viscosity", 1e4}, {"density", 0.0}}}}}};
}

// The acceleration changes the path, not the fixed point: with and without it the solutions agree
// to the tolerance.
TEST(RigidBody, SolutionIsTheUnacceleratedOne) {
  io::json off = strong_config(16);
  off["solver"]["tol"] = 1e-9;
  off["stokes"]["rigid_bodies"]["mode"] = "off";
  io::json on = off;
  on["stokes"].erase("rigid_bodies");
  StokesRun a(off), b(on);
  a.solve();
  b.solve();
  for (int axis = 0; axis < 2; ++axis) {
    const VelocityGap g = velocity_gap(b, a, axis);
    EXPECT_GT(g.scale, 1e-6) << axis;  // the disc rises at ~2e-5
    EXPECT_LT(g.diff, 1e-6 * g.scale) << axis;
  }
}

// A light disc 10^4 times stiffer than its matrix rising in a box: the iterations at 32^2, 48^2 and
// 64^2 grow at most linearly with n (measured 1000, 1100, 1500; without the correction
// 38200 at 32^2 and 248400 at 64^2).
TEST(RigidBody, StrongInclusionIterationsGrowLinearly) {
  const int n[3] = {32, 48, 64};
  long long it[3];
  for (int l = 0; l < 3; ++l) {
    StokesRun r(strong_config(n[l]));
    it[l] = r.solve();
    for (const auto& e : r.model->residuals()) EXPECT_LE(e.norm, 1e-6) << e.equation;
    RecordProperty("iterations_" + std::to_string(n[l]), std::to_string(it[l]));
  }
  for (int l = 0; l < 2; ++l) EXPECT_LE(it[l + 1], 1.25 * it[l] * n[l + 1] / n[l]) << n[l + 1];
  EXPECT_LE(it[0], 3000);
}

// 46 weak inclusions (10^-3) cover a quarter of the box, so the lowest decile of the viscosities
// is theirs and the matrix is one "stiff body" that reaches all four free-slip walls: they forbid
// its 2-D modes (x and y translation, rotation about z), so it is not corrected. The z
// translation, which the walls of a 2-D box cannot forbid, is no mode of a 2-D body (it kept the
// correction's passes running over the whole box: 2.7x the cost of an iteration, same result).
TEST(RigidBody, MatrixAroundManyWeakInclusionsIsHeldByTheWalls) {
  const double radius = std::sqrt(10.0 * 10.0 * 0.005 / M_PI);
  io::json phase = {{"shape", "random_inclusions"}, {"count", 46},  {"radius_min", radius},
                    {"gap", 0.2 * radius},          {"seed", 1901}, {"viscosity", 1e-3}};
  io::json c = {{"grid", {{"n", {127, 127, 1}}, {"length", {10.0, 10.0, 1.0}}}},
                {"solver", {{"tol", 1e-5}, {"tol_mode", "absolute"}}}};
  c["stokes"] = {{"density", 1.0}, {"gravity", {0.0, -1.0, 0.0}}, {"smoothing", 10}};
  c["stokes"]["materials"]["phases"] = io::json::array({phase});
  StokesRun r(c);
  const stokes::RigidBodies& bodies = r.model->rigid_bodies();
  // (A pocket of matrix that inclusions enclose is a stiff body of its own, rightly corrected.)
  for (std::size_t n = 0; n < bodies.size(); ++n)
    EXPECT_NE(bodies.body(n).walls & 15u, 15u) << "body " << n << " reaches every wall";
}

// The benchmark's 14 inclusions (Räss et al. 2022, scripts/stokes_inclusion_table.py: 10 x 10
// box, radius 0.399, gap half a radius, seed 1869) 10^6 times stiffer than the matrix, smoothed
// by 10 passes, at 255^2: the smoothed rims join neighbours that are 5 cells apart, yet every
// inclusion is a body of its own (a seed each).
TEST(RigidBody, FourteenSmoothedInclusionsAreFourteenBodies) {
  const double radius = std::sqrt(10.0 * 10.0 * 0.005 / M_PI);
  io::json phase = {{"shape", "random_inclusions"}, {"count", 14},  {"radius_min", radius},
                    {"gap", 0.5 * radius},          {"seed", 1869}, {"viscosity", 1e6}};
  io::json c = {{"grid", {{"n", {255, 255, 1}}, {"length", {10.0, 10.0, 1.0}}}},
                {"solver", {{"tol", 1e-5}, {"tol_mode", "absolute"}}}};
  c["stokes"] = {{"pure_shear", 1.0}, {"smoothing", 10}};
  c["stokes"]["materials"]["phases"] = io::json::array({phase});
  StokesRun r(c);
  const stokes::RigidBodies& bodies = r.model->rigid_bodies();
  ASSERT_EQ(bodies.size(), 14u);
  const std::vector<real> label = r.model->body_labels()->to_host();
  const std::vector<real> mu = r.model->mu().to_host();
  const Layout& l = r.model->mu().layout();
  for (std::size_t n = 0; n < bodies.size(); ++n) {
    const stokes::StiffBody& b = bodies.body(n);
    EXPECT_GT(b.mu_peak, 0.9e6);
    // Its cells are the ones labelled with its id, and its core is in it.
    int cells = 0;
    for (int j = 0; j < 255; ++j)
      for (int i = 0; i < 255; ++i) cells += label[l.index(i, j, 0)] == b.id;
    EXPECT_GT(cells, 500);  // the disc alone: ~500 cells
  }
  // No stiff core cell is left out of a body.
  for (int j = 0; j < 255; ++j)
    for (int i = 0; i < 255; ++i)
      if (mu[l.index(i, j, 0)] > 1e5) {
        ASSERT_NE(label[l.index(i, j, 0)], 0) << i << " " << j;
      }
}

// A light disc 10^6 times stiffer than the matrix centred at height y above the y_lo wall, 128^2.
io::json wall_disc_config(double y) {
  io::json c = strong_config(128);
  c["stokes"]["inclusion"]["viscosity"] = 1e6;
  c["stokes"]["inclusion"]["center"] = {0.5, y, 0.5};
  c["solver"]["max_iter"] = 60 * 128;
  return c;
}

// The disc of r, free of its walls, converges within 50 n_x.
void expect_free_disc_converges(StokesRun& r) {
  const stokes::RigidBodies& b = bodies_of(r);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b.body(0).walls, 0u);
  const long long it = r.solve();
  ::testing::Test::RecordProperty("iterations", std::to_string(it));
  for (const auto& e : r.model->residuals()) EXPECT_LE(e.norm, 1e-6) << e.equation;
  EXPECT_LE(it, 50 * 128);
}

// The disc 0.065 above the wall (8 cells): its grown rim reaches the wall, its solid part does
// not, so it keeps every rigid mode (the wall's faces count in its pseudo-inertia) and rises in
// 5600 iterations. When its box decided its walls, the wall held its y motion and rotation and it
// stalled at momentum 0.2 after 200 n_x.
TEST(RigidBody, DiscWhoseRimReachesAWallKeepsItsModes) {
  StokesRun r(wall_disc_config(0.215));
  EXPECT_EQ(bodies_of(r).body(0).lo[1], 0);  // its rim reaches y_lo
  expect_free_disc_converges(r);
}

// The disc 0.055 above the wall (6.6 cells): the tail of its smoothing above the seed threshold
// (1e3 x the matrix) reaches the wall, its solid part (above the geometric mean of that threshold
// and its peak) does not, so it keeps every mode and rises in 5500 iterations; with its walls
// taken from the tail it took 17300. On the wall (centre 0.14: the disc 1.3 cells away), the wall
// holds it along its normal.
TEST(RigidBody, DiscWhoseSmoothingTailReachesAWallKeepsItsModes) {
  StokesRun r(wall_disc_config(0.205));
  expect_free_disc_converges(r);
  StokesRun on_wall(wall_disc_config(0.14));
  ASSERT_EQ(bodies_of(on_wall).size(), 1u);
  EXPECT_EQ(bodies_of(on_wall).body(0).walls, 1u << 2);  // y_lo
}

// A correction sets again only the walls its faces can reach: the disc 1.3 cells above the y_lo
// wall reaches that wall alone, a centred one none. After corrected iterations (each refilling the
// y_lo wall's ghosts only), setting every wall again changes no velocity (refresh() does).
TEST(RigidBody, CorrectionsSetOnlyTheWallsTheyReach) {
  StokesRun centred(wall_disc_config(0.5));
  EXPECT_EQ(bodies_of(centred).edge_sides(), 0u);
  StokesRun r(wall_disc_config(0.14));
  ASSERT_EQ(bodies_of(r).edge_sides(), 1u << 2);  // y_lo
  r.model->begin_solve(static_cast<real>(r.settings.dt));
  r.model->iterate(40);
  std::vector<std::vector<real>> iterated;
  for (int a = 0; a < 2; ++a) iterated.push_back(r.model->V(a).to_host());
  r.model->refresh();
  for (int a = 0; a < 2; ++a) EXPECT_EQ(r.model->V(a).to_host(), iterated[a]) << "V" << a;
}

// The benchmark's 14 inclusions (as above, seed 1869) 10^6 times stiffer, smoothed geometrically
// (10 passes over log mu: the arithmetic passes bridge these small grids' inclusions into
// non-rigid blobs), rising and in pure shear, at 63^2, 95^2 and 191^2: converged to the
// benchmark's rule, in iterations that grow at most linearly with n (measured 1380 / 2030 / 3914
// rising, 1020 / 1620 / 3458 in shear).
TEST(RigidBody, FourteenStiffInclusionsIterationsGrowLinearly) {
  const double radius = std::sqrt(10.0 * 10.0 * 0.005 / M_PI);
  const int n[3] = {63, 95, 191};
  for (const bool rising : {true, false}) {
    SCOPED_TRACE(rising ? "rising" : "pure shear");
    io::json phase = {{"shape", "random_inclusions"},
                      {"count", 14},
                      {"radius_min", radius},
                      {"radius_max", radius},
                      {"gap", 0.5 * radius},
                      {"seed", 1869},
                      {"viscosity", 1e6},
                      {"density", rising ? 0.5 : 0.0}};
    long long it[3];
    for (int l = 0; l < 3; ++l) {
      io::json c = {
          {"grid", {{"n", {n[l], n[l], 1}}, {"length", {10.0, 10.0, 1.0}}}},
          {"solver",
           {{"tol", 1e-5}, {"tol_mode", "absolute"}, {"ncheck", 10}, {"max_iter", 30 * n[l]}}}};
      c["stokes"] = {{"smoothing", 10},
                     {"smoothing_mean", "geometric"},
                     {"residual_norm", "rms_range"},
                     {"continuity_tol", 1e-3},
                     {"density", rising ? 1.0 : 0.0},
                     {"gravity", {0.0, rising ? -1.0 : 0.0, 0.0}},
                     {"pure_shear", rising ? 0.0 : 1.0}};
      c["stokes"]["materials"]["phases"] = io::json::array({phase});
      StokesRun r(c);
      EXPECT_EQ(r.model->rigid_bodies().size(), 14u) << n[l];
      it[l] = r.solve();
      RecordProperty(std::string(rising ? "rising_" : "shear_") + std::to_string(n[l]),
                     std::to_string(it[l]));
    }
    for (int l = 1; l < 3; ++l) EXPECT_LE(it[l], 1.25 * it[0] * n[l] / n[0]) << n[l];
    EXPECT_LE(it[0], 25 * n[0]);
  }
}

// A stiff region that wraps around a periodic axis has no single centre: it is no body.
TEST(RigidBody, BodyAcrossAPeriodicBoundaryIsLeftAlone) {
  io::json c = ball_config(16, 1);
  c["grid"]["periodic"] = {true, false, false};
  c["stokes"]["inclusion"]["center"] = {0.05, 0.5, 0.5};
  StokesRun r(c);
  EXPECT_TRUE(r.model->rigid_bodies().empty());
  c["stokes"]["inclusion"]["center"] = {0.5, 0.5, 0.5};
  StokesRun inside(c);
  EXPECT_EQ(inside.model->rigid_bodies().size(), 1u);
}

// The former gain is refused, naming the key (0 still turns the correction off).
TEST(RigidBody, FormerGainIsRefused) {
  io::json c = ball_config(16, 1);
  c["stokes"]["inclusion"]["rigid_acceleration"] = 10;
  EXPECT_NE(error_of([&] { StokesRun r(c); }).find("stokes.inclusion.rigid_acceleration"),
            std::string::npos);
  c["stokes"]["inclusion"]["rigid_acceleration"] = 0;
  StokesRun off(c);
  EXPECT_TRUE(off.model->rigid_bodies().empty());
}

}  // namespace
}  // namespace staghorn::test
