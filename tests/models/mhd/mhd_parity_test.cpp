// The CUDA backend's MHD stage against the CPU's on a random state (full MHD with entropy,
// conduction, imposed field; 64^3): the increment of every variable after one RK3 stage agrees to
// 1e-10 of its largest value (the backends differ by fused multiply-adds and exp). Prints the
// largest difference of the new state in ulps. Skipped where no GPU is visible, as in CI.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "mhd_fixture.hpp"
#include "solvers/rk3.hpp"

namespace staghorn::test {
namespace {

io::json random_state(int n) {
  return {
      {"grid", {{"n", {n, n, n}}, {"length", {6.3, 6.3, 6.3}}, {"periodic", {true, true, true}}}},
      {"mhd",
       {{"K", 1e-3},
        {"zeta", 1e-3},
        {"B_ext", {0.1, 0.2, 0.3}},
        {"initial", {{"type", "noise"}, {"amplitude", 0.05}, {"field_amplitude", 0.05}}}}}};
}

std::vector<real> interior(const Field& f) {
  const std::vector<real> all = f.to_host();
  std::vector<real> out;
  const Int3 n = f.layout().n;
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j)
      for (int i = 0; i < n.x; ++i) out.push_back(all[f.layout().index(i, j, k)]);
  return out;
}

long long ulps(double a, double b) {
  long long ia, ib;
  std::memcpy(&ia, &a, 8), std::memcpy(&ib, &b, 8);
  if (ia < 0) ia = LLONG_MIN - ia;
  if (ib < 0) ib = LLONG_MIN - ib;
  return ia > ib ? ia - ib : ib - ia;
}

TEST(MhdParity, CudaStageMatchesCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  MhdRun cpu(random_state(64)), gpu(random_state(64), Exec::cuda(0));
  const real dt = 1e-3;
  std::vector<std::vector<real>> before;
  for (int v = 0; v < cpu.model->vars(); ++v) before.push_back(interior(cpu.model->var(v)));
  cpu.model->stage(0, rk3::kAlpha[0], rk3::kBeta[0], dt);
  gpu.model->stage(0, rk3::kAlpha[0], rk3::kBeta[0], dt);
  gpu.exec.synchronize();
  for (int v = 0; v < cpu.model->vars(); ++v) {
    const std::vector<real> c = interior(cpu.model->var(v)), g = interior(gpu.model->var(v));
    double scale = 0, diff = 0;
    long long worst = 0;
    for (std::size_t i = 0; i < c.size(); ++i) {
      scale = std::fmax(scale, std::fabs(c[i] - before[v][i]));
      diff = std::fmax(diff, std::fabs(c[i] - g[i]));
      worst = std::max(worst, ulps(c[i], g[i]));
    }
    std::printf("%-6s max increment %.3e, max |cpu - gpu| %.3e, max ulps %lld\n",
                cpu.model->var(v).name().c_str(), scale, diff, worst);
    EXPECT_GT(scale, 0) << cpu.model->var(v).name() << " did not change";
    EXPECT_LE(diff, 1e-10 * scale) << cpu.model->var(v).name();
  }
}

}  // namespace
}  // namespace staghorn::test
