// exact_sum: the same bits for any partition of the terms (here: OpenMP thread counts, and the
// ranks of the MPI run), close to the true sum; first_non_finite: names the first broken field on
// any rank, the closing face of a bounded axis included.
#include "core/exact_sum.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/decomposition.hpp"
#include "core/finite.hpp"

namespace staghorn {
namespace {

// Terms of mixed sign and magnitude (1e-6 to 1e3) by global index, so that a plain sum's rounding
// depends on the order of addition.
struct Mixed {
  Int3 offset;
  SH_HD real operator()(int i, int j, int k) const {
    const double x = (i + offset.x) * 0.37 + (j + offset.y) * 1.91 + (k + offset.z) * 0.53;
    return static_cast<real>(sin(x) * pow(10.0, fmod(x, 9.0) - 6.0));
  }
};

struct NanAtThree {
  SH_HD real operator()(int i, int, int) const {
    return i == 3 ? std::numeric_limits<real>::quiet_NaN() : real(1);
  }
};

Grid grid_of(Int3 n) {
  Grid g;
  g.n = n;
  return g;
}

TEST(ExactSum, SameBitsForEveryThreadCountAndCloseToTheTrueSum) {
  const Comm comm;
  const Decomposition dec(grid_of({48, 40, 6}), comm);
  const Region r{{0, 0, 0}, dec.local_cells()};
  const Mixed f{dec.offset()};
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const double one = exact_sum(Exec::cpu(), comm, r, f);
  const double plain_one = reduce(Exec::cpu(), r, SumOp{}, f);
  bool plain_differs = false;  // else this test could not tell an exact sum from a plain one
  for (int t : {2, 3, 5}) {
    omp_set_num_threads(t);
    EXPECT_EQ(exact_sum(Exec::cpu(), comm, r, f), one) << t << " threads";
    plain_differs = plain_differs || reduce(Exec::cpu(), r, SumOp{}, f) != plain_one;
  }
  EXPECT_TRUE(plain_differs);
  omp_set_num_threads(threads);
  long double local = 0;  // the reference, serial in extended precision
  for (int k = 0; k < r.hi.z; ++k)
    for (int j = 0; j < r.hi.y; ++j)
      for (int i = 0; i < r.hi.x; ++i) local += f(i, j, k);
  const double reference = comm.sum(static_cast<double>(local));
  EXPECT_NEAR(one, reference, 1e-13 * std::fabs(reference) + 1e-12);
}

// frexp and ldexp as exact_quantum used them: the reference of its bit-built quantum.
real reference_quantum(double bound, double n) {
  if (!(bound > 0) || !std::isfinite(bound * n)) return 1;
  int e = 0;
  std::frexp(bound * n, &e);
  return static_cast<real>(std::ldexp(1.0, e - std::numeric_limits<real>::digits + 2));
}

TEST(ExactQuantum, EqualsFrexpAndLdexpAndItsInverseIsExact) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  const double huge = std::numeric_limits<double>::max();
  std::vector<double> bounds = {0.0,
                                -1.0,
                                tiny,
                                1e-310,
                                2.2250738585072014e-308,
                                1e-300,
                                1e300,
                                huge,
                                std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN()};
  for (int e = -1070; e <= 1023; e += 7)
    for (const double m : {1.0, 1.5, 1.9999999999999998}) bounds.push_back(std::ldexp(m, e));
  for (const double n : {0.0, 1.0, 3.0, 1e5, 16777216.0})
    for (const double b : bounds) {
      const real q = exact_quantum(b, n);
      const real want = reference_quantum(b, n);
      EXPECT_TRUE(q == want || (q != q && want != want)) << "bound " << b << " n " << n;
      EXPECT_EQ(exact_quantum_inverse(b, n), real(1) / want) << "bound " << b << " n " << n;
    }
}

TEST(ExactSum, NanShows) {
  const Comm comm;
  const Decomposition dec(grid_of({8, 8, 1}), comm);
  EXPECT_TRUE(
      std::isnan(exact_sum(Exec::cpu(), comm, {{0, 0, 0}, dec.local_cells()}, NanAtThree{})));
}

TEST(FirstNonFinite, NamesTheFirstBrokenFieldOnAnyRank) {
  const Comm comm;
  Grid g = grid_of({16, 16, 1});
  const Decomposition dec(g, comm);
  const Layout l{dec.local_cells(), {1, 1, 0}};
  Field a("a", Location::cell, l, Backend::cpu), b("b", Location::face_x, l, Backend::cpu),
      c("c", Location::cell, l, Backend::cpu);
  const std::vector<const Field*> all{&a, &b, &c};
  EXPECT_EQ(first_non_finite(Exec::cpu(), dec, all), "");
  // A halo value is not written to snapshots: it does not count.
  std::vector<real> h = a.to_host();
  h[l.index(-1, 0, 0)] = std::numeric_limits<real>::infinity();
  a.from_host(h);
  EXPECT_EQ(first_non_finite(Exec::cpu(), dec, all), "");
  // The closing face of the bounded x axis (in the high halo) on the last rank along x counts.
  const bool last_x = dec.coords().x == dec.dims().x - 1;
  if (last_x) {
    std::vector<real> v = b.to_host();
    v[l.index(l.n.x, 0, 0)] = std::numeric_limits<real>::quiet_NaN();
    b.from_host(v);
  }
  EXPECT_EQ(first_non_finite(Exec::cpu(), dec, all), "b");
  // A later field broken on the last rank only: b is still the first.
  if (comm.rank() == comm.size() - 1) {
    std::vector<real> v = c.to_host();
    v[l.index(0, 0, 0)] = -std::numeric_limits<real>::infinity();
    c.from_host(v);
  }
  EXPECT_EQ(first_non_finite(Exec::cpu(), dec, all), "b");
  EXPECT_EQ(first_non_finite(Exec::cpu(), dec, {&a, &c}), "c");
}

}  // namespace
}  // namespace staghorn
