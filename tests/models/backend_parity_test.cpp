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

// Nonlinear (n = 3), periodic x (halo exchange), Dirichlet y, Neumann z.
io::json parity_config(const std::string& kernel) {
  return {
      {"grid", {{"n", {64, 64, 64}}, {"periodic", {true, false, false}}}},
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
}

std::vector<real> iterate(const std::string& kernel, const Exec& ex, int iterations) {
  DiffusionRun r(parity_config(kernel), ex);
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

TEST(KernelParity, CudaMatchesCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const std::vector<real> cpu = iterate("generic", Exec::cpu(), kIterations);
  for (const char* kernel : {"generic", "pairs", "marching"}) {
    const double d = max_relative_difference(cpu, iterate(kernel, Exec::cuda(0), kIterations));
    std::printf("cuda %s vs cpu after %d iterations on 64^3: max relative difference %.3e\n",
                kernel, kIterations, d);
    EXPECT_LT(d, kCudaTolerance) << kernel;
  }
}

struct Value {
  View v;
  SH_HD real operator()(int i, int j, int k) const { return v(i, j, k); }
};

// Max and sum reductions on the GPU against the CPU on random data (max exact, sum to rounding).
TEST(KernelParity, CudaReductionsMatchCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const Layout l{{61, 37, 29}, {1, 1, 1}};
  std::mt19937 rng(7);
  std::uniform_real_distribution<real> u(-1, 1);
  std::vector<real> host(l.count());
  for (real& x : host) x = u(rng);
  const Exec gpu = Exec::cuda(0), cpu = Exec::cpu();
  Field a("a", Location::cell, l, Backend::cpu), b("b", Location::cell, l, Backend::cuda);
  a.from_host(host);
  b.from_host(host);
  for (const Region& r : {l.interior(), l.all(), Region{{3, 5, 7}, {4, 6, 8}}}) {
    EXPECT_EQ(reduce(cpu, r, MaxOp{}, Value{a.view()}), reduce(gpu, r, MaxOp{}, Value{b.view()}));
    const real sa = reduce(cpu, r, SumOp{}, Value{a.view()}),
               sb = reduce(gpu, r, SumOp{}, Value{b.view()});
    EXPECT_NEAR(sa, sb, kSumTolerancePerCell * r.size());
  }
}

}  // namespace
}  // namespace staghorn::test
