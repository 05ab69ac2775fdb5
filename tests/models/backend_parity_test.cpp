// The CUDA backend runs the same kernels as the CPU backend and must give the same numbers:
// max relative difference < 1e-12 in double on a 64^3 case after a fixed number of iterations.
// Skipped where no GPU is visible (CI); run on a GPU machine.
#include <gtest/gtest.h>

#include <cmath>

#include "diffusion_fixture.hpp"

namespace staghorn::test {
namespace {

TEST(BackendParity, DiffusionCudaMatchesCpu) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  // Nonlinear (n = 3), periodic x (device halo exchange), Dirichlet y, Neumann z.
  const io::json c = {
      {"grid", {{"n", {64, 64, 64}}, {"periodic", {true, false, false}}}},
      {"time", {{"dt", 1e-3}, {"steps", 1}}},
      {"diffusion",
       {{"exponent", 3},
        {"initial", {{"type", "gaussian"}, {"background", 0.2}, {"sigma", 0.15}, {"center", {0.1, 0.5, 0.4}}}},
        {"boundary",
         {{"y_lo", {{"type", "dirichlet"}, {"value", 0.5}}},
          {"z_lo", {{"type", "neumann"}}},
          {"z_hi", {{"type", "neumann"}}}}}}}};
  DiffusionRun cpu(c, Exec::cpu()), gpu(c, Exec::cuda(0));
  const int iterations = 500;
  for (DiffusionRun* r : {&cpu, &gpu}) {
    r->model->begin_solve(r->settings.dt);
    r->model->iterate(iterations);
  }
  const std::vector<real> a = cpu.interior(), b = gpu.interior(), h0 = DiffusionRun(c).interior();
  double max_rel = 0, max_change = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    max_rel = std::max(max_rel, std::fabs(a[i] - b[i]) / std::max(std::fabs(a[i]), 1e-300));
    max_change = std::max(max_change, std::fabs(a[i] - h0[i]));
  }
  RecordProperty("max_relative_difference", std::to_string(max_rel));
  std::printf("cuda vs cpu after %d iterations on 64^3: max relative difference %.3e\n", iterations,
              max_rel);
  EXPECT_LT(max_rel, 1e-12);
  EXPECT_GT(max_change, 1e-3);  // the iterations moved the state
  // And the solver converges on the GPU too, to the CPU's answer.
  const auto ra = cpu.model->residuals(), rb = gpu.model->residuals();
  EXPECT_NEAR(ra[0].norm, rb[0].norm, 1e-9 * ra[0].norm);
}

}  // namespace
}  // namespace staghorn::test
