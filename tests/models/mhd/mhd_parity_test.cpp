// The CUDA backend's MHD stage against the CPU's on a random state (full MHD with entropy,
// conduction, imposed field; 128^3): the increment of every variable after one RK3 stage agrees
// to 1e-10 of its largest value (the backends differ by fused multiply-adds and exp), and the
// tiled CUDA kernel agrees with the generic CUDA kernel to 2 ulps (the same arithmetic on
// shared-memory copies). Prints the largest differences in ulps. Skipped where no GPU is
// visible, as in CI.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "mhd_fixture.hpp"
#include "solvers/rk3.hpp"

namespace staghorn::test {
namespace {

io::json random_state(int n, const std::string& kernel = "generic") {
  return {
      {"grid", {{"n", {n, n, n}}, {"length", {6.3, 6.3, 6.3}}, {"periodic", {true, true, true}}}},
      {"mhd",
       {{"kernel", kernel},
        {"K", 1e-3},
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

// The state after one stage on each variable, interior cells.
std::vector<std::vector<real>> one_stage(MhdRun& r) {
  r.model->stage(0, rk3::kAlpha[0], rk3::kBeta[0], 1e-3);
  r.exec.synchronize();
  std::vector<std::vector<real>> out;
  for (int v = 0; v < r.model->vars(); ++v) out.push_back(interior(r.model->var(v)));
  return out;
}

struct Difference {
  double increment = 0, diff = 0;
  long long ulps = 0;
};

Difference compare(const std::vector<real>& before, const std::vector<real>& a,
                   const std::vector<real>& b) {
  Difference d;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d.increment = std::fmax(d.increment, std::fabs(a[i] - before[i]));
    d.diff = std::fmax(d.diff, std::fabs(a[i] - b[i]));
    d.ulps = std::max(d.ulps, ulps(a[i], b[i]));
  }
  return d;
}

TEST(MhdParity, CudaStagesMatchCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const int n = 128;
  MhdRun cpu(random_state(n)), generic(random_state(n), Exec::cuda(0)),
      tiled(random_state(n, "tiled"), Exec::cuda(0));
  std::vector<std::vector<real>> before;
  for (int v = 0; v < cpu.model->vars(); ++v) before.push_back(interior(cpu.model->var(v)));
  const auto c = one_stage(cpu), g = one_stage(generic), t = one_stage(tiled);
  for (int v = 0; v < cpu.model->vars(); ++v) {
    const std::string name = cpu.model->var(v).name();
    const Difference gc = compare(before[v], c[v], g[v]), tg = compare(before[v], g[v], t[v]),
                     tc = compare(before[v], c[v], t[v]);
    std::printf(
        "%-6s max increment %.3e | generic gpu - cpu: %.3e (%lld ulps) | tiled - generic "
        "gpu: %.3e (%lld ulps) | tiled - cpu: %lld ulps\n",
        name.c_str(), gc.increment, gc.diff, gc.ulps, tg.diff, tg.ulps, tc.ulps);
    EXPECT_GT(gc.increment, 0) << name << " did not change";
    EXPECT_LE(gc.diff, 1e-10 * gc.increment) << name;
    EXPECT_LE(tg.ulps, 2) << name;
  }
}

}  // namespace
}  // namespace staghorn::test
