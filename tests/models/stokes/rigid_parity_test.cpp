// The stiff bodies' sums in one pass for all bodies (models/stokes/stiff_bodies/rigid_body.hpp, through
// models/stokes/stiff_bodies/reduce_segments.hpp) against the former path, one body at a time over its box (a max pass
// for the body's quantum, then its sums), on the model's own labels: the modes' Gram and
// pseudo-inertia matrices and a random velocity change's mode sums, weighted and not, are the same
// bits for every body, with many bodies in 2-D and several in 3-D. The correction that stays on
// the backend (one rank) moves the velocities to the same bits as the one through the host (the
// path of several ranks, forced).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/exact_sum.hpp"
#include "core/for_each.hpp"
#include "core/reduce_each.hpp"
#include "models/staggered_stokes/fields.hpp"
#include "models/stokes/stiff_bodies/rigid_body.hpp"
#include "models/stokes/stiff_bodies/rigid_terms.hpp"
#include "models/stokes/stiff_bodies/wall_ghosts.hpp"
#include "stokes_fixture.hpp"

namespace staghorn::test {
namespace {

using stokes::BodyAt;
using stokes::ModeTerms;

// The former per-body passes, over the body's box only.
struct BoundOfBody {
  ModeTerms t;
  BodyAt b;
  bool matrix, weighted;
  SH_HD real operator()(int i, int j, int k) const { return t.bound(b, matrix, weighted, i, j, k); }
};
// As the former change bound: a reduce_each of one term.
struct BoundTermOfBody {
  BoundOfBody b;
  SH_HD Terms<1> operator()(int i, int j, int k) const { return {{b(i, j, k)}}; }
};
struct ChangeOfBody {
  ModeTerms t;
  BodyAt b;
  real quantum;
  bool weighted;
  SH_HD Terms<6> operator()(int i, int j, int k) const {
    Terms<6> out;
    for (int kk = 0; kk < 6; ++kk) out.v[kk] = t.rounded(b, kk, -1, weighted, quantum, i, j, k);
    return out;
  }
};
struct EntryOfBody {
  ModeTerms t;
  BodyAt b;
  int kk, ll;
  real quantum;
  bool weighted;
  SH_HD real operator()(int i, int j, int k) const {
    return t.rounded(b, kk, ll, weighted, quantum, i, j, k);
  }
};

// One body's sums as the former RigidBody computed them.
class FormerBody {
 public:
  FormerBody(StokesRun& r, const stokes::StiffBody& body, const ModeTerms& t)
      : comm_(r.dec->comm()),
        ex_(r.exec),
        t_(t),
        at_(stokes::body_at(r.dec->grid(), body, body.id)),
        box_(stokes::owned_box(*r.dec, r.model->mu().layout(), body)),
        box_cells_(static_cast<double>(comm_.sum(static_cast<long long>(box_.size())))) {}

  stokes::ModeMatrix matrix(bool weighted) const {
    const real q =
        quantum(comm_.max(reduce(ex_, box_, MaxOp{}, BoundOfBody{t_, at_, true, weighted})));
    stokes::ModeMatrix m{};
    for (int k = 0; k < 6; ++k)
      for (int l = 0; l <= k; ++l)
        m[k][l] = m[l][k] =
            comm_.sum(double(reduce(ex_, box_, SumOp{}, EntryOfBody{t_, at_, k, l, q, weighted})));
    return m;
  }
  std::array<double, 6> change(bool weighted) const {
    const real q = quantum(comm_.max(
        reduce_each<1>(ex_, box_, MaxOp{}, BoundTermOfBody{{t_, at_, false, weighted}})[0]));
    const std::array<double, 6> local =
        reduce_each<6>(ex_, box_, SumOp{}, ChangeOfBody{t_, at_, q, weighted});
    std::array<double, 6> global;
    for (int k = 0; k < 6; ++k) global[k] = comm_.sum(local[k]);
    return global;
  }

 private:
  real quantum(double bound) const { return exact_quantum(bound, box_cells_); }

  const Comm& comm_;
  Exec ex_;
  ModeTerms t_;
  BodyAt at_;
  Region box_;
  double box_cells_;
};

std::array<Field, 3> random_velocities(StokesRun& r, const char* name, unsigned seed,
                                       double amplitude = 1) {
  const Layout& l = r.model->V(0).layout();
  const Backend b = r.exec.backend();
  std::array<Field, 3> V{Field(std::string(name) + "x", Location::face_x, l, b),
                         Field(std::string(name) + "y", Location::face_y, l, b),
                         Field(std::string(name) + "z", Location::face_z, l, b)};
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-amplitude, amplitude);
  for (Field& f : V) r.set(f, [&](double, double, double) { return u(gen); });
  return V;
}

// The same with their walls' ghosts set (as the iterations leave them).
std::array<Field, 3> walled_velocities(StokesRun& r, const char* name, unsigned seed) {
  std::array<Field, 3> V = random_velocities(r, name, seed);
  GhostFill fill;
  r.model->walls().add_velocities(fill, V, r.dec->grid().dims());
  fill.apply(r.exec, *r.dec);
  return V;
}

void expect_former_sums(StokesRun& r) {
  const stokes::RigidBodies& bodies = r.model->rigid_bodies();
  const std::array<Field, 3> V = random_velocities(r, "V", 5), V_old = random_velocities(r, "W", 7);
  const stokes::BodyFaces faces =
      stokes::body_faces(*r.dec, *r.model->body_labels(), r.model->mu_max());
  const ModeTerms t{faces,
                    {V[0].view(), V[1].view(), V[2].view()},
                    {V_old[0].view(), V_old[1].view(), V_old[2].view()}};
  for (bool weighted : {false, true}) {
    const std::vector<std::array<double, 6>> sums = bodies.mode_sums(V, V_old, weighted);
    for (std::size_t b = 0; b < bodies.size(); ++b) {
      SCOPED_TRACE("body " + std::to_string(b) + (weighted ? " weighted" : ""));
      const FormerBody former(r, bodies.body(b), t);
      EXPECT_EQ(sums[b], former.change(weighted));
      EXPECT_EQ(weighted ? bodies.inertia(b) : bodies.gram(b), former.matrix(weighted));
    }
  }
}

// The model's bodies again, their sums taken as `path` says (host: always through the host).
stokes::RigidBodies bodies_again(StokesRun& r, stokes::RigidBodies::Path path) {
  const stokes::RigidBodies& model = r.model->rigid_bodies();
  return stokes::RigidBodies(*r.dec, r.exec, *r.model->body_labels(), model.corrected(),
                             r.model->mu_max(), model.mobility(), model.buoyancy(), path);
}
stokes::RigidBodies through_host(StokesRun& r) {
  return bodies_again(r, stokes::RigidBodies::Path::host);
}

// Random stresses (P, then tau_xx .. tau_yz) of the given amplitude, as a correction's input.
struct RandomStresses {
  std::vector<Field> fields;
  stokes::BodyStresses st;
  RandomStresses(StokesRun& r, unsigned seed, double amplitude) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(-amplitude, amplitude);
    const std::vector<int> components = stokes::stress_components(r.dec->grid().dims());
    fields.reserve(1 + components.size());
    // P, then each component of the run, laid out as the model's.
    auto add = [&](const Field& like) {
      fields.emplace_back("s" + std::to_string(fields.size()), like.location(), like.layout(),
                          like.backend());
      r.set(fields.back(), [&](double, double, double) { return u(gen); });
      return fields.back().view();
    };
    st.P = add(r.model->P());
    for (int n : components) st.T[n] = add(r.model->tau(n));
    const stokes::Params c = r.model->params();
    st.vdt = c.vdt;
    st.rd[0] = c.rdx, st.rd[1] = c.rdy, st.rd[2] = c.rdz;
  }
};

// correct() on the model's bodies (on one rank: on the backend alone) and on the same bodies
// through the host, four times over, each from the same velocities: the first correction (its
// quanta from a pass of its bounds), one with the scales the first left, one whose change is 1000
// times larger (its sums might not be exact: nothing moves, the scales grow), and that change
// again (rescaled: it moves). The same bits in every velocity each time.
void expect_resident_as_through_host(StokesRun& r) {
  const stokes::RigidBodies& model = r.model->rigid_bodies();
  const stokes::RigidBodies host = through_host(r);
  EXPECT_EQ(model.resident(), r.dec->comm().size() == 1);
  EXPECT_FALSE(host.resident());
  const std::array<Field, 3> V = random_velocities(r, "V", 5), near = random_velocities(r, "W", 7),
                             far = random_velocities(r, "F", 11, 1000);
  const std::array<Field, 3>* changes[] = {&near, &near, &far, &far};
  const bool moves[] = {true, true, false, true};
  for (int c = 0; c < 4; ++c) {
    SCOPED_TRACE("correction " + std::to_string(c));
    std::array<Field, 3> resident = random_velocities(r, "R", 5),
                         hosted = random_velocities(r, "H", 5);
    model.correct(resident, *changes[c]);
    host.correct(hosted, *changes[c]);
    bool moved = false;
    for (int a = 0; a < 3; ++a) {
      SCOPED_TRACE("axis " + std::to_string(a));
      const std::vector<real> got = resident[a].to_host(), want = hosted[a].to_host();
      ASSERT_EQ(got.size(), want.size());
      EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(real)), 0);
      moved = moved || got != V[a].to_host();
    }
    EXPECT_EQ(moved, moves[c]);
  }
  // The surface form (the model's correction), fresh bodies on both paths: random stresses, the
  // same four corrections.
  const stokes::RigidBodies on_backend = bodies_again(r, stokes::RigidBodies::Path::automatic),
                            on_host = through_host(r);
  const RandomStresses close(r, 13, 1), large(r, 17, 1000);
  const stokes::WallGhosts walls =
      stokes::wall_ghosts(r.model->walls(), *r.dec, r.model->V(0).layout());
  const RandomStresses* stresses[] = {&close, &close, &large, &large};
  const std::array<Field, 3> walled = walled_velocities(r, "V", 5);
  for (int c = 0; c < 4; ++c) {
    SCOPED_TRACE("surface correction " + std::to_string(c));
    // Walls set: the shift stores the ghosts of the faces it may move, moved or not.
    std::array<Field, 3> resident = walled_velocities(r, "R", 5),
                         hosted = walled_velocities(r, "H", 5);
    on_backend.correct(resident, stresses[c]->st, walls);
    on_host.correct(hosted, stresses[c]->st, walls);
    bool moved = false;
    for (int a = 0; a < 3; ++a) {
      SCOPED_TRACE("axis " + std::to_string(a));
      const std::vector<real> got = resident[a].to_host(), want = hosted[a].to_host();
      EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(real)), 0);
      moved = moved || got != walled[a].to_host();
    }
    EXPECT_EQ(moved, moves[c]);
  }
}

// The 46 inclusions of the benchmark (scripts/stokes_inclusion_table.py: 10 x 10 box, radius
// 0.399, gap half a radius, seed 1855 + 46) 10^6 times stiffer than the matrix, smoothed by 10
// passes, at n^2.
io::json many_bodies_2d(int n) {
  const double radius = std::sqrt(10.0 * 10.0 * 0.005 / M_PI);
  io::json phase = {{"shape", "random_inclusions"},
                    {"count", 46},
                    {"radius_min", radius},
                    {"radius_max", radius},
                    {"gap", 0.5 * radius},
                    {"seed", 1855 + 46},
                    {"viscosity", 1e6}};
  io::json c = {{"grid", {{"n", {n, n, 1}}, {"length", {10.0, 10.0, 1.0}}}},
                {"solver", {{"tol_mode", "absolute"}}}};
  c["stokes"] = {{"pure_shear", 1.0}, {"smoothing", 10}};
  c["stokes"]["materials"]["phases"] = io::json::array({phase});
  return c;
}

// Six random balls 10^3 times stiffer at 20^3.
io::json several_bodies_3d() {
  io::json phase = {{"shape", "random_inclusions"},
                    {"count", 6},
                    {"radius_min", 0.1},
                    {"gap", 0.05},
                    {"seed", 3},
                    {"viscosity", 1e3}};
  io::json c = {{"grid", {{"n", {20, 20, 20}}}}, {"solver", {{"tol_mode", "absolute"}}}};
  c["stokes"] = {{"pure_shear", 1.0}, {"smoothing", 1}};
  c["stokes"]["materials"]["phases"] = io::json::array({phase});
  return c;
}

// The surface form of the correction's sums (the model's) against the volume form (the
// definition): after an iteration without corrections, each body's velocity change times its
// faces' pseudo-viscosity, summed along each mode over its faces, equals vdt times the net force
// and torque of the iteration's stresses at its surface plus its buoyancy, up to the rounding of
// the change (V_new - V_old loses the bits of V below the change's).
void expect_surface_sums_as_volume(io::json config, int iterations, double tolerance) {
  StokesRun with_bodies(config);
  config["stokes"]["rigid_bodies"]["mode"] = "off";
  StokesRun r(config);
  r.model->begin_solve(1);
  r.model->iterate(iterations);
  auto copy_of = [](const Field& f) {
    Field c(f.name() + "_copy", f.location(), f.layout(), f.backend());
    c.copy_from(f);
    return c;
  };
  const std::array<Field, 3> before = {copy_of(r.model->V(0)), copy_of(r.model->V(1)),
                                       copy_of(r.model->V(2))};
  r.model->iterate(1);
  const std::array<Field, 3> after = {copy_of(r.model->V(0)), copy_of(r.model->V(1)),
                                      copy_of(r.model->V(2))};
  const stokes::Params c = r.model->params();
  const stokes::RigidBodies bodies(*r.dec, r.exec, *with_bodies.model->body_labels(),
                                   with_bodies.model->rigid_bodies().corrected(), r.model->mu_max(),
                                   1, stokes::Buoyancy{&r.model->rho(), {c.g[0], c.g[1], c.g[2]}});
  ASSERT_GT(bodies.size(), 2u);
  stokes::BodyStresses st;
  st.P = r.model->P().view();
  for (int n : stokes::stress_components(r.dec->grid().dims())) st.T[n] = r.model->tau(n).view();
  st.vdt = c.vdt;
  st.rd[0] = c.rdx, st.rd[1] = c.rdy, st.rd[2] = c.rdz;
  const std::vector<std::array<double, 6>> volume = bodies.mode_sums(after, before, true),
                                           surface = bodies.force_sums(st);
  EXPECT_LT(bodies.surface_records(), bodies.face_records());
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    double largest = 0;
    for (double v : volume[b]) largest = std::max(largest, std::fabs(v));
    ASSERT_GT(largest, 0) << "body " << b;
    for (int k = 0; k < 6; ++k) {
      EXPECT_NEAR(surface[b][k], volume[b][k], tolerance * largest)
          << "body " << b << " mode " << k;
    }
  }
}

// On one rank the shift stores the walls' ghosts of the faces it moves: every point of V, ghosts
// included, is what a fill of all walls after the same correction without them gives.
void expect_shift_ghosts_as_the_fill(StokesRun& r) {
  const stokes::RigidBodies stores = bodies_again(r, stokes::RigidBodies::Path::automatic),
                            leaves = bodies_again(r, stokes::RigidBodies::Path::automatic);
  ASSERT_NE(stores.edge_sides(), 0u);  // some body reaches a wall
  const int dims = r.dec->grid().dims();
  auto fill_walls = [&](std::array<Field, 3>& V) {
    GhostFill fill;
    r.model->walls().add_velocities(fill, V, dims);
    fill.apply(r.exec, *r.dec);
  };
  std::array<Field, 3> with = walled_velocities(r, "A", 5), after = walled_velocities(r, "B", 5);
  const RandomStresses st(r, 13, 1);
  const stokes::WallGhosts walls =
      stokes::wall_ghosts(r.model->walls(), *r.dec, r.model->V(0).layout());
  for (int c = 0; c < 3; ++c) {  // a first correction, then two with the scales it left
    SCOPED_TRACE("correction " + std::to_string(c));
    EXPECT_TRUE(stores.correct(with, st.st, walls));
    EXPECT_FALSE(leaves.correct(after, st.st, stokes::WallGhosts{}));
    fill_walls(after);
    for (int a = 0; a < dims; ++a) {
      const std::vector<real> got = with[a].to_host(), want = after[a].to_host();
      EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(real)), 0) << a;
    }
  }
}

TEST(RigidParity, ShiftSetsTheWallsGhostsAsTheFill) {
  if (Comm().size() > 1) GTEST_SKIP() << "the shift sets the walls' ghosts on one rank";
  for (const io::json& c : {many_bodies_2d(256), several_bodies_3d()}) {
    StokesRun r(c);
    expect_shift_ghosts_as_the_fill(r);
  }
}

TEST(RigidParity, SurfaceSumsAreTheChangesIn2D) {
  expect_surface_sums_as_volume(many_bodies_2d(256), 40, 1e-9);
}

TEST(RigidParity, SurfaceSumsAreTheChangesIn3DWithBuoyancy) {
  io::json c = several_bodies_3d();
  c["stokes"]["gravity"] = {0.0, 0.0, -1.0};
  c["stokes"]["materials"]["phases"][0]["density"] = 2.0;
  expect_surface_sums_as_volume(c, 40, 1e-9);
}

// At 256^2 (4 ranks split it evenly): more than ten bodies (those beside walls or sharing a seed
// region fewer).
TEST(RigidParity, ManyBodiesIn2DSumAsOneBodyAtATime) {
  StokesRun r(many_bodies_2d(256));
  ASSERT_GT(r.model->rigid_bodies().size(), 10u);
  expect_former_sums(r);
}

TEST(RigidParity, SeveralBodiesIn3DSumAsOneBodyAtATime) {
  StokesRun r(several_bodies_3d());
  ASSERT_GT(r.model->rigid_bodies().size(), 2u);
  expect_former_sums(r);
}

TEST(RigidParity, CorrectionOnTheBackendIsTheOneThroughTheHost) {
  for (const io::json& c : {many_bodies_2d(256), several_bodies_3d()}) {
    StokesRun r(c);
    ASSERT_GT(r.model->rigid_bodies().size(), 2u);
    expect_resident_as_through_host(r);
  }
}

}  // namespace
}  // namespace staghorn::test
