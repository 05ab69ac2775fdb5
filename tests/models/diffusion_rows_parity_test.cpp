// The CPU row kernel (diffusion.kernel = rows, models/diffusion/rows.hpp) against the generic
// kernel, the reference: the state after a number of PT iterations, bit for bit. The row kernel
// shares each face's flux between the face's two cells and skips the pseudo-step's large-a branch
// in rows that do not need it, with the generic kernel's functions and operand order, so the
// bits must not change: in 3-D, 2-D and 1-D, for the exponents compiled in (0, 3) and read at run
// time (2 by multiplication, 2.5 by pow), with rows where some cells take the large-a branch,
// and with 1, 2 and 3 threads (3 splits the rows mid-plane: partial planes at either end of a
// thread's rows, shorter z marches and y tiles). Grids are odd-sized on every axis. The residual
// norm that decides convergence (the rows model's own vectorised reduction) must not change either.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "diffusion_fixture.hpp"

namespace staghorn::test {
namespace {

struct Case {
  std::vector<int> n;
  double exponent;
  double D0;
  std::string name() const {
    std::string s = std::to_string(n[0]);
    for (std::size_t a = 1; a < n.size(); ++a) s += "x" + std::to_string(n[a]);
    return s + " exponent " + std::to_string(exponent) + " D0 " + std::to_string(D0);
  }
};

// Periodic x (halo exchange), Dirichlet y, Neumann z; an off-centre bump on a background.
io::json config(const Case& c, const std::string& kernel) {
  std::vector<int> n = c.n;
  n.resize(3, 1);  // fewer dimensions: one cell along the others
  return {{"grid", {{"n", n}, {"periodic", {true, false, false}}}},
          {"time", {{"dt", 1e-3}, {"steps", 1}}},
          {"diffusion",
           {{"exponent", c.exponent},
            {"D0", c.D0},
            {"kernel", kernel},
            {"initial",
             {{"type", "gaussian"},
              {"background", 0.05},
              {"sigma", 0.15},
              {"center", {0.1, 0.45, 0.4}}}},
            {"boundary",
             {{"y_lo", {{"type", "dirichlet"}, {"value", 0.5}}},
              {"z_lo", {{"type", "neumann"}}},
              {"z_hi", {{"type", "neumann"}}}}}}}};
}

// The interior after the iterations; residual: the model's residual norm there (the rows
// kernel's model checks it with its own vectorised reduction).
std::vector<real> iterate(const Case& c, const std::string& kernel, int iterations,
                          double& residual) {
  DiffusionRun r(config(c, kernel));
  r.model->begin_solve(r.settings.dt);
  r.model->iterate(iterations);
  residual = r.model->residuals().at(0).norm;
  return r.interior();
}

void check(const Case& c) {
  SCOPED_TRACE(c.name());
  constexpr int kIterations = 30;
  const int threads = omp_get_max_threads();
  const std::vector<real> start = DiffusionRun(config(c, "generic")).interior();
  double generic_residual = 0, rows_residual = 0;
  const std::vector<real> generic = iterate(c, "generic", kIterations, generic_residual);
  EXPECT_GT(generic_residual, 0);
  double moved = 0;
  for (std::size_t i = 0; i < start.size(); ++i)
    moved = std::fmax(moved, std::fabs(generic[i] - start[i]));
  EXPECT_GT(moved, 1e-6) << "the iterations moved the state";
  for (int t : {1, 2, 3}) {
    omp_set_num_threads(t);
    const std::vector<real> rows = iterate(c, "rows", kIterations, rows_residual);
    omp_set_num_threads(threads);
    EXPECT_EQ(rows_residual, generic_residual) << t << " threads: residual norm";
    ASSERT_EQ(rows.size(), generic.size());
    std::size_t differ = 0;
    double worst = 0;
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i] != generic[i])
        ++differ, worst = std::fmax(worst, std::fabs(rows[i] - generic[i]));
    EXPECT_EQ(differ, 0u) << t << " threads, largest difference " << worst << " (state moved by "
                          << moved << ")";
  }
  std::printf("%-48s rows == generic after %d iterations, residual %.17g (1, 2, 3 threads)\n",
              c.name().c_str(), kIterations, generic_residual);
}

TEST(DiffusionRowsParity, ThreeDimensions) {
  check({{37, 23, 19}, 3, 1});
  check({{37, 23, 19}, 0, 1});
  check({{21, 17, 13}, 2, 1});
  check({{21, 17, 13}, 2.5, 1});
  // More rows per plane than a y tile holds (at most 64): with 2 threads the second plane is split
  // between the threads, 65 rows for the first.
  check({{7, 130, 3}, 3, 1});
}

// D0 large enough that cells inside the bump have a >= pt::kFloatSafe and cells outside do not:
// the rows that cross the bump take the generic kernel's large-a branch.
TEST(DiffusionRowsParity, LargeCoefficientBranch) { check({{37, 23, 19}, 3, 1e31}); }

TEST(DiffusionRowsParity, FewerDimensions) {
  check({{45, 31}, 3, 1});
  check({{45, 31}, 0, 1});
  check({{81}, 3, 1});
}

}  // namespace
}  // namespace staghorn::test
