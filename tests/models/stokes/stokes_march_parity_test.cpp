// The CPU march (stokes.kernel = tiled on the CPU, models/stokes/march.hpp) against the generic
// kernel, the reference.
// 1. The model: a 3-D sinking ball with a 10^3 viscosity jump (smoothed), walls on some sides,
//    20 PT iterations from a random start, with each kernel; every field within 1e-14 of its
//    largest change (as stokes_parity_test, tighter: the march evaluates every value with the
//    generic kernel's operators, so the difference is expected to be 0, printed), with arithmetic
//    and harmonic edge viscosities. The grid is no multiple of the vectors or the tiles.
// 2. The kernel alone, to the bit: one iteration on random arrays (halos included, walls on every
//    low side or none) by the generic kernel and by the march over the whole region, over pieces
//    of it (as the boundary shell and the inner region of a hidden exchange, and the blocks of
//    other rank counts, cut it) and on 1, 2 and 3 threads (whole planes, partial planes), with
//    the default tiles and tiles of 1 and 3 rows (many tiles per plane).
//    Every array, halos included (which neither may write), the same bits.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "core/for_each.hpp"
#include "models/stokes/march.hpp"
#include "stokes_fixture.hpp"

namespace staghorn::test {
namespace {

// Runs f on `threads` OpenMP threads, then restores the count.
void with_threads(int threads, const std::function<void()>& f) {
  const int before = omp_get_max_threads();
  omp_set_num_threads(threads);
  f();
  omp_set_num_threads(before);
}

io::json ball(const std::string& kernel, const std::string& average) {
  return {{"grid", {{"n", {37, 22, 19}}}},
          {"solver", {{"tol_mode", "absolute"}}},
          {"stokes",
           {{"kernel", kernel},
            {"viscosity_average", average},
            {"gravity", {0.0, 0.0, -1.0}},
            {"smoothing", 2},
            {"boundary", {{"x_lo", "no_slip"}, {"y_lo", "no_slip"}, {"z_hi", "no_slip"}}},
            {"inclusion",
             {{"radius", 0.2}, {"viscosity", 1e3}, {"density", 1.0}, {"rigid_acceleration", 0}}}}}};
}

std::vector<Field*> unknowns(StokesRun& r) {
  std::vector<Field*> fields{&r.model->P()};
  for (int a = 0; a < 3; ++a) fields.push_back(&r.model->V(a));
  for (int c = 0; c < 6; ++c) fields.push_back(&r.model->tau(c));
  return fields;
}

// Every unknown, halos included, after `iterations` from the same random state.
std::vector<std::vector<real>> run(StokesRun& r, int iterations,
                                   std::vector<std::vector<real>>* start) {
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (Field* f : unknowns(r)) r.set(*f, [&](double, double, double) { return u(gen); });
  r.model->refresh();
  std::vector<std::vector<real>> out;
  for (Field* f : unknowns(r)) out.push_back(f->to_host());
  if (start) *start = out;
  r.model->begin_solve(1);
  r.model->iterate(iterations);
  out.clear();
  for (Field* f : unknowns(r)) out.push_back(f->to_host());
  return out;
}

void model_parity(const std::string& average) {
  SCOPED_TRACE(average);
  StokesRun generic(ball("generic", average)), march(ball("tiled", average));
  std::vector<std::vector<real>> start;
  std::vector<std::vector<real>> g, m;
  with_threads(3, [&] {
    g = run(generic, 20, &start);
    m = run(march, 20, nullptr);
  });
  const char* names[10] = {"P", "Vx", "Vy", "Vz", "txx", "tyy", "tzz", "txy", "txz", "tyz"};
  for (std::size_t f = 0; f < g.size(); ++f) {
    double change = 0, diff = 0;
    for (std::size_t q = 0; q < g[f].size(); ++q) {
      change = std::fmax(change, std::fabs(g[f][q] - start[f][q]));
      diff = std::isfinite(m[f][q]) ? std::fmax(diff, std::fabs(m[f][q] - g[f][q])) : INFINITY;
    }
    std::printf("%-9s %-4s largest change %.3e | march - generic %.1e of the change\n",
                average.c_str(), names[f], change, diff / change);
    EXPECT_GT(change, 0) << names[f];
    EXPECT_LE(diff, 1e-14 * change) << names[f];
  }
}

TEST(StokesMarchParity, ModelIterationsMatchGeneric) { model_parity("arithmetic"); }
TEST(StokesMarchParity, ModelIterationsMatchGenericWithHarmonicEdges) { model_parity("harmonic"); }

// Random arrays for one iteration: the old state, the material, and the new state's arrays filled
// with a sentinel that no kernel writes.
struct Arrays {
  Layout layout;
  std::vector<Field> f;
  explicit Arrays(Int3 n) : layout{n, {1, 1, 1}} {
    f.reserve(23);
    for (int a = 0; a < 23; ++a)
      f.emplace_back("a" + std::to_string(a), Location::cell, layout, Backend::cpu);
    std::mt19937 gen(11);
    std::uniform_real_distribution<double> u(-1, 1);
    for (int a = 0; a < 23; ++a) {
      std::vector<real> v = f[a].to_host();
      // mu and mu_max (10, 11) positive over three decades; any values do for the kernels.
      for (real& x : v) x = a == 10 || a == 11 ? std::exp(3 * u(gen)) : a >= 13 ? real(-7) : u(gen);
      f[a].from_host(v);
    }
  }
  stokes::Pseudo<3> pseudo(bool walls) const {
    stokes::Params c;
    c.rdx = 3, c.rdy = 2.5, c.rdz = 2;
    c.gdt = 0.3, c.r = 1.5, c.vdt = 0.2;
    c.g[0] = 0.1, c.g[1] = -0.2, c.g[2] = -1;
    for (int a = 0; a < 3; ++a) c.wall_lo[a] = walls;
    auto v = [&](int a) { return f[a].view(); };
    return {
        {c, {v(0), v(1), v(2), v(3), v(4), v(5), v(6), v(7), v(8), v(9)}, {v(10), v(11), v(12)}},
        {}};
  }
  stokes::State out() const {
    auto v = [&](int a) { return f[a].view(); };
    return {v(13), v(14), v(15), v(16), v(17), v(18), v(19), v(20), v(21), v(22)};
  }
  std::vector<std::vector<real>> new_state() const {
    std::vector<std::vector<real>> s;
    for (int a = 13; a < 23; ++a) s.push_back(f[a].to_host());
    return s;
  }
};

template <class Run>
std::vector<std::vector<real>> one_iteration(bool walls, Run run) {
  Arrays a({29, 13, 11});
  run(a.pseudo(walls), a.out(), a.layout.interior());
  return a.new_state();
}

long long differing(const std::vector<std::vector<real>>& a,
                    const std::vector<std::vector<real>>& b) {
  long long n = 0;
  for (std::size_t v = 0; v < a.size(); ++v)
    for (std::size_t i = 0; i < a[v].size(); ++i)
      n += std::memcmp(&a[v][i], &b[v][i], sizeof(real)) != 0;
  return n;
}

TEST(StokesMarchParity, KernelGivesTheGenericBitsOnAnyPiecesAndThreads) {
  using stokes::Pseudo;
  using stokes::State;
  for (bool walls : {false, true}) {
    SCOPED_TRACE(walls ? "walls on the low sides" : "no walls");
    const auto generic = one_iteration(walls, [](const Pseudo<3>& ps, const State& o, Region r) {
      for_each(Exec::cpu(), r, stokes::Iteration<3>{ps, o});
    });
    for (int threads : {1, 2, 3})
      for (int rows : {0, 1, 3}) {
        SCOPED_TRACE(std::to_string(threads) + " threads, tiles of " + std::to_string(rows));
        with_threads(threads, [&] {
          const auto whole =
              one_iteration(walls, [rows](const Pseudo<3>& ps, const State& o, Region r) {
                stokes::run_march(ps, o, r, rows);
              });
          EXPECT_EQ(differing(whole, generic), 0);
        });
      }
    // Cuts along x off the vectors' width, and thinner than a tile along y and z.
    const int xs[] = {0, 13, 29}, ys[] = {0, 2, 13}, zs[] = {0, 1, 11};
    const auto pieces = one_iteration(walls, [&](const Pseudo<3>& ps, const State& o, Region) {
      for (int x = 0; x < 2; ++x)
        for (int y = 0; y < 2; ++y)
          for (int z = 0; z < 2; ++z)
            stokes::run_march(ps, o, {{xs[x], ys[y], zs[z]}, {xs[x + 1], ys[y + 1], zs[z + 1]}}, 4);
    });
    EXPECT_EQ(differing(pieces, generic), 0);
  }
}

}  // namespace
}  // namespace staghorn::test
