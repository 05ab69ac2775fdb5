// Every kernel variant computes the same function: the z-marching kernel against the generic
// reference on the CPU (bit for bit, always), and the CUDA backend's kernels against the CPU's
// (max relative difference < 1e-12 in double on a 64^3 case after a fixed number of iterations;
// skipped where no GPU is visible, as in CI).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/for_each.hpp"
#include "diffusion_fixture.hpp"

namespace staghorn::test {
namespace {

// Nonlinear (n = 3), periodic x (halo exchange), Dirichlet y, Neumann z; walls: bounded x too,
// Dirichlet on its low side and Neumann on its high one (the walls' ghosts of every axis). nx: the
// cells along x (62: the high x wall's ghost in the middle of its 32-byte sector, which a GPU
// fills from the ghost on, after the row's last interior cells: store_face_ghost).
io::json parity_config(const std::string& kernel, bool walls = false, int nx = 64) {
  io::json c = {
      {"grid", {{"n", {nx, 64, 64}}, {"periodic", {!walls, false, false}}}},
      {"time", {{"dt", 1e-3}, {"steps", 1}}},
      {"diffusion",
       {{"exponent", 3},
        {"kernel", kernel},
        {"initial",
         {{"type", "gaussian"}, {"background", 0.2}, {"sigma", 0.15}, {"center", {0.1, 0.5, 0.4}}}},
        {"boundary",
         {{"y_lo", {{"type", "dirichlet"}, {"value", 0.5}}},
          {"z_lo", {{"type", "neumann"}}},
          {"z_hi", {{"type", "neumann"}}}}}}}};
  if (walls) {
    c["diffusion"]["boundary"]["x_lo"] = {{"type", "dirichlet"}, {"value", 0.3}};
    c["diffusion"]["boundary"]["x_hi"] = {{"type", "neumann"}};
  }
  return c;
}

std::vector<real> iterate(const std::string& kernel, const Exec& ex, int iterations,
                          bool walls = false, int nx = 64) {
  DiffusionRun r(parity_config(kernel, walls, nx), ex);
  r.model->begin_solve(r.settings.dt);
  r.model->iterate(iterations);
  return r.interior();
}

double max_relative_difference(const std::vector<real>& a, const std::vector<real>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    m = std::max(m, std::fabs(double(a[i]) - b[i]) / std::max<double>(std::fabs(a[i]), 1e-300));
  return m;
}

constexpr int kIterations = 300;
#if defined(STAGHORN_SINGLE_PRECISION)
// Float: the GPU contracts a * b + c into one rounding where the CPU rounds twice, and 300
// iterations carry those differences at float's 6e-8 per operation.
constexpr double kCudaTolerance = 1e-4;
constexpr double kSumTolerancePerCell = 1e-6;  // the GPU sums in float, the CPU in double
#else
constexpr double kCudaTolerance = 1e-12;
constexpr double kSumTolerancePerCell = 1e-12;
#endif

TEST(KernelParity, VariantsMatchGenericOnCpu) {
  const std::vector<real> generic = iterate("generic", Exec::cpu(), 40);
  for (const char* kernel : {"marching", "pairs"})
    EXPECT_EQ(max_relative_difference(generic, iterate(kernel, Exec::cpu(), 40)), 0.0) << kernel;
  EXPECT_GT(max_relative_difference(generic, DiffusionRun(parity_config("generic")).interior()),
            1e-4)
      << "the iterations moved the state";
}

// The pairs kernel sets the walls' ghosts itself, the generic and marching ones leave them to
// fill_ghosts: all three must agree to the bit, on every side of a block bounded all round.
TEST(KernelParity, KernelsSetTheWallGhostsFillGhostsWould) {
  const std::vector<real> marching = iterate("marching", Exec::cpu(), 40, true);
  const std::vector<real> start = DiffusionRun(parity_config("marching", true)).interior();
  EXPECT_GT(max_relative_difference(start, marching), 1e-4) << "the iterations moved the state";
  for (const char* kernel : {"generic", "pairs"})
    EXPECT_EQ(max_relative_difference(marching, iterate(kernel, Exec::cpu(), 40, true)), 0.0)
        << kernel;
}

TEST(KernelParity, CudaMatchesCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const std::vector<real> cpu = iterate("generic", Exec::cpu(), kIterations);
  for (const char* kernel : {"generic", "pairs", "marching"}) {
    const double d = max_relative_difference(cpu, iterate(kernel, Exec::cuda(0), kIterations));
    std::printf("cuda %s vs cpu after %d iterations on 64^3: max relative difference %.3e\n",
                kernel, kIterations, d);
    EXPECT_LT(d, kCudaTolerance) << kernel;
  }
  for (const int nx : {64, 62}) {
    const std::vector<real> walls = iterate("marching", Exec::cpu(), kIterations, true, nx);
    for (const char* kernel : {"generic", "pairs"})
      EXPECT_LT(
          max_relative_difference(walls, iterate(kernel, Exec::cuda(0), kIterations, true, nx)),
          kCudaTolerance)
          << kernel << ", bounded all round, nx " << nx;
  }
}

// On a GPU the iterations between residual checks are replayed as CUDA graphs (solver.graphs):
// the same bits as launched one by one, for every kernel, in batches of odd and even lengths
// (the first batch of a model runs one by one: the later ones replay), with a periodic axis's
// halo copied within the graph and with walls.
TEST(KernelParity, GraphedIterationsMatchOneByOneToTheBit) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  for (const bool walls : {false, true})
    for (const char* kernel : {"generic", "pairs", "marching"}) {
      std::vector<real> result[2];
      for (const bool graphs : {true, false}) {
        io::json c = parity_config(kernel, walls);
        c["solver"]["graphs"] = graphs;
        DiffusionRun r(c, Exec::cuda(0));
        r.model->begin_solve(r.settings.dt);
        for (const int count : {5, 40, 33, 100}) r.model->iterate(count);
        result[graphs] = r.interior();
      }
      EXPECT_EQ(result[true], result[false]) << kernel << (walls ? ", walls" : "");
      EXPECT_GT(max_relative_difference(result[false],
                                        DiffusionRun(parity_config(kernel, walls)).interior()),
                1e-4);
    }
}

struct Value {
  View v;
  SH_HD real operator()(int i, int j, int k) const { return v(i, j, k); }
};

// Max and sum reductions on the GPU against the CPU on random data (max exact, sum to rounding);
// the second layout has more columns and planes than the first pass gives its blocks, so each
// block walks several planes. A NaN in one cell of a far plane makes the max NaN.
TEST(KernelParity, CudaReductionsMatchCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Exec gpu = Exec::cuda(0), cpu = Exec::cpu();
  for (const Layout l : {Layout{{61, 37, 29}, {1, 1, 1}}, Layout{{130, 70, 200}, {1, 1, 1}}}) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<real> u(-1, 1);
    std::vector<real> host(l.count());
    for (real& x : host) x = u(rng);
    Field a("a", Location::cell, l, Backend::cpu), b("b", Location::cell, l, Backend::cuda);
    a.from_host(host);
    b.from_host(host);
    const Int3 n = l.n;
    for (const Region& r : {l.interior(), l.all(), Region{{3, 5, 7}, {4, 6, 8}},
                            Region{{1, 2, 3}, {n.x - 2, n.y - 1, n.z - 3}}}) {
      EXPECT_EQ(reduce(cpu, r, MaxOp{}, Value{a.view()}), reduce(gpu, r, MaxOp{}, Value{b.view()}));
      const real sa = reduce(cpu, r, SumOp{}, Value{a.view()}),
                 sb = reduce(gpu, r, SumOp{}, Value{b.view()});
      EXPECT_NEAR(sa, sb, kSumTolerancePerCell * r.size());
    }
    host[l.index(n.x - 1, n.y / 2, n.z - 2)] = std::nan("");
    b.from_host(host);
    EXPECT_TRUE(std::isnan(reduce(gpu, l.interior(), MaxOp{}, Value{b.view()})));
  }
}

}  // namespace
}  // namespace staghorn::test
