// reduce_segments: the sums and maxima of every segment in one pass equal a direct serial
// computation, on every backend here (the GPU when one is visible), for regions of every shape,
// with cells that add to several segments and to one segment twice; a segment no cell touches,
// and an empty region, give the identity. reduce_segments_into combines the same results onto
// what a buffer on the backend holds.
#include "models/stokes/stiff_bodies/reduce_segments.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "test_support.hpp"

namespace staghorn {
namespace {

constexpr int kSegments = 7;  // segment 6 is never touched

SH_HD inline unsigned hash(int i, int j, int k) {
  return static_cast<unsigned>(i + 11) * 73856093u ^ static_cast<unsigned>(j + 13) * 19349663u ^
         static_cast<unsigned>(k + 17) * 83492791u;
}

// Up to three (segment, terms) pairs per cell, with no pattern a wrong index mapping could
// reproduce; integer terms, so sums are exact in any order and every backend must agree to the
// bit. Pair p of cell (i, j, k): present where bit p of the hash is set.
struct Pairs {
  static SH_HD bool present(unsigned h, int p) { return (h >> p & 1u) != 0; }
  static SH_HD int segment(unsigned h, int p) { return static_cast<int>((h >> (4 + 3 * p)) % 6); }
  static SH_HD Terms<2> terms(unsigned h, int p, int i, int j) {
    return {{static_cast<real>((h >> (2 * p)) % 1009) - 500, static_cast<real>(i - 2 * j + p)}};
  }
  template <class Out>
  SH_HD void operator()(int i, int j, int k, const Out& out) const {
    const unsigned h = hash(i, j, k);
    for (int p = 0; p < 3; ++p)
      if (present(h, p)) out.add(segment(h, p), terms(h, p, i, j));
  }
};

std::vector<double> serial(const Region& r, bool max) {
  const double identity = max ? -std::numeric_limits<double>::infinity() : 0.0;
  std::vector<double> t(kSegments * 2, identity);
  test::for_cells(r, [&](int i, int j, int k) {
    const unsigned h = hash(i, j, k);
    for (int p = 0; p < 3; ++p) {
      if (!Pairs::present(h, p)) continue;
      const Terms<2> v = Pairs::terms(h, p, i, j);
      double* s = &t[Pairs::segment(h, p) * 2];
      for (int n = 0; n < 2; ++n) s[n] = max ? std::fmax(s[n], v.v[n]) : s[n] + v.v[n];
    }
  });
  return t;
}

using test::backends;

TEST(ReduceSegments, EqualsADirectSerialComputationOnEveryBackend) {
  for (const Exec& ex : backends())
    for (const Region& r : test::reduction_regions()) {
      SCOPED_TRACE(ex.description());
      const std::vector<double> sum = reduce_segments<2>(ex, r, kSegments, SumOp{}, Pairs{});
      const std::vector<double> max = reduce_segments<2>(ex, r, kSegments, MaxOp{}, Pairs{});
      EXPECT_EQ(sum, serial(r, false));
      EXPECT_EQ(max, serial(r, true));
    }
}

TEST(ReduceSegments, UntouchedSegmentsAndEmptyRegionsGiveTheIdentity) {
  for (const Exec& ex : backends()) {
    SCOPED_TRACE(ex.description());
    const std::vector<double> some =
        reduce_segments<2>(ex, test::reduction_regions()[0], kSegments, MaxOp{}, Pairs{});
    EXPECT_EQ(some[2 * 6], -std::numeric_limits<double>::infinity());
    const std::vector<double> none =
        reduce_segments<2>(ex, Region{{0, 0, 0}, {0, 4, 4}}, kSegments, SumOp{}, Pairs{});
    EXPECT_EQ(none, std::vector<double>(2 * kSegments, 0.0));
  }
}

// More segments than fit the GPU's shared accumulators: the cells add straight to the result.
struct Spread {
  int segments;
  template <class Out>
  SH_HD void operator()(int i, int j, int k, const Out& out) const {
    out.add(static_cast<int>(hash(i, j, k) % segments), {{real(1), real(i + j + k)}});
  }
};

TEST(ReduceSegments, ManySegmentsEqualTheDirectCounts) {
  const int segments = 5000;
  const Region r{{0, 0, 0}, {64, 64, 8}};
  std::vector<double> want(2 * segments, 0.0);
  test::for_cells(r, [&](int i, int j, int k) {
    const int s = static_cast<int>(hash(i, j, k) % segments);
    want[2 * s] += 1;
    want[2 * s + 1] += i + j + k;
  });
  for (const Exec& ex : backends()) {
    SCOPED_TRACE(ex.description());
    EXPECT_EQ(reduce_segments<2>(ex, r, segments, SumOp{}, Spread{segments}), want);
  }
}

// Segments in blobs that span many rows (as stiff bodies do), some cells in two: on the GPU each
// lane combines a run of rows in registers before it adds to the accumulators. Regions whose x
// extent is no multiple of a warp and whose rows are no multiple of a lane's run.
struct Blobs {
  static SH_HD int blob(int i, int j, int k) { return (i / 9 + 2 * (j / 13) + 3 * (k / 5)) % 4; }
  template <class Out>
  SH_HD void operator()(int i, int j, int k, const Out& out) const {
    out.add(blob(i, j, k), {{real(1), real(i - j + 2 * k)}});
    if (j % 13 == 0) out.add(blob(i, j + 13, k), {{real(2), real(k)}});
  }
};

TEST(ReduceSegments, RunsOfRowsInOneSegmentEqualTheDirectSums) {
  for (const Region& r : {Region{{0, 0, 0}, {70, 45, 1}}, Region{{3, 1, 2}, {40, 37, 23}}}) {
    std::vector<double> want_sum(8, 0.0), want_max(8, -std::numeric_limits<double>::infinity());
    const auto add = [&](int s, double a, double b) {
      want_sum[2 * s] += a, want_sum[2 * s + 1] += b;
      want_max[2 * s] = std::fmax(want_max[2 * s], a);
      want_max[2 * s + 1] = std::fmax(want_max[2 * s + 1], b);
    };
    test::for_cells(r, [&](int i, int j, int k) {
      add(Blobs::blob(i, j, k), 1, i - j + 2 * k);
      if (j % 13 == 0) add(Blobs::blob(i, j + 13, k), 2, k);
    });
    for (const Exec& ex : backends()) {
      SCOPED_TRACE(ex.description());
      EXPECT_EQ(reduce_segments<2>(ex, r, 4, SumOp{}, Blobs{}), want_sum);
      EXPECT_EQ(reduce_segments<2>(ex, r, 4, MaxOp{}, Blobs{}), want_max);
    }
  }
}

// Over a list of cells: the sums of the listed cells alone (every third cell of a region, in
// linear order); an empty list gives the identity.
TEST(ReduceSegments, AListOfCellsReducesOnlyThoseCells) {
  const Region r{{1, 2, 0}, {37, 29, 5}};
  std::vector<Int3> listed;
  std::vector<double> want(kSegments * 2, 0.0);
  int n = 0;
  test::for_cells(r, [&](int i, int j, int k) {
    if (n++ % 3 != 0) return;
    listed.push_back({i, j, k});
    const unsigned h = hash(i, j, k);
    for (int p = 0; p < 3; ++p) {
      if (!Pairs::present(h, p)) continue;
      const Terms<2> v = Pairs::terms(h, p, i, j);
      for (int m = 0; m < 2; ++m) want[Pairs::segment(h, p) * 2 + m] += v.v[m];
    }
  });
  for (const Exec& ex : backends()) {
    SCOPED_TRACE(ex.description());
    const CellList list(ex, listed);
    EXPECT_EQ(reduce_segments<2>(ex, list, kSegments, SumOp{}, Pairs{}), want);
    EXPECT_EQ(reduce_segments<2>(ex, CellList(), kSegments, SumOp{}, Pairs{}),
              std::vector<double>(kSegments * 2, 0.0));
  }
}

// `start` on ex's backend, then pass(out) on it; the buffer's values back on the host.
template <class Pass>
std::vector<double> onto(const Exec& ex, const std::vector<double>& start, const Pass& pass) {
  Buffer<double> out(space_of(ex.backend()), start.size());
  copy_bytes(out.data(), start.data(), out.bytes());
  pass(out.data());
  ex.synchronize();  // the pass returns before it is done on the GPU
  std::vector<double> host(start.size());
  copy_bytes(host.data(), out.data(), out.bytes());
  return host;
}

// Each of `start`'s values combined with Op with the same of `v`.
template <class Op>
std::vector<double> combined(Op op, std::vector<double> start, const std::vector<double>& v) {
  for (std::size_t n = 0; n < v.size(); ++n) start[n] = op(start[n], v[n]);
  return start;
}

// Onto the identity: reduce_segments' results; onto zeros, the maxima floored at zero; two passes
// onto one buffer: both passes' sums; over a list, the listed cells'; no cell: the buffer as it
// was.
TEST(ReduceSegments, IntoABufferCombinesOntoWhatItHolds) {
  const Region r = test::reduction_regions()[0];
  const std::vector<double> zeros(kSegments * 2, 0.0),
      lowest(kSegments * 2, -std::numeric_limits<double>::infinity());
  const std::vector<double> sum = serial(r, false), max = serial(r, true);
  std::vector<Int3> listed;
  test::for_cells(r, [&](int i, int j, int k) { listed.push_back({i, j, k}); });
  for (const Exec& ex : backends()) {
    SCOPED_TRACE(ex.description());
    const auto into = [&](const auto& cells, auto op) {
      return [&ex, &cells, op](double* out) {
        reduce_segments_into<2>(ex, cells, kSegments, op, Pairs{}, out);
      };
    };
    EXPECT_EQ(onto(ex, zeros, into(r, SumOp{})), sum);
    EXPECT_EQ(onto(ex, lowest, into(r, MaxOp{})), max);
    EXPECT_EQ(onto(ex, zeros, into(r, MaxOp{})), combined(MaxOp{}, zeros, max));
    EXPECT_EQ(onto(ex, zeros,
                   [&](double* out) {
                     into(r, SumOp{})(out);
                     into(r, SumOp{})(out);
                   }),
              combined(SumOp{}, sum, sum));
    const CellList list(ex, listed);
    EXPECT_EQ(onto(ex, zeros, into(list, SumOp{})), sum);
    EXPECT_EQ(onto(ex, max, into(CellList(), SumOp{})), max);
  }
}

// A step after the pass (ThenOnce): each segment's two results added into a third place, and a
// count of the step's runs. It sees every block's results, runs once per pass (the count), and
// again after a second pass onto the same buffer (its counter back at zero).
struct AddPairs {
  double* out;
  int segments;
  SH_HD void operator()(int t, int threads) const {
    for (int s = t; s < segments; s += threads)
      out[2 * segments + s] = read_combined(out + 2 * s) + read_combined(out + 2 * s + 1);
    if (t == 0) out[3 * segments] += 1;
  }
};

TEST(ReduceSegments, AStepAfterThePassSeesAllResultsOnce) {
  const Region r{{0, 0, 0}, {64, 64, 8}};  // many blocks on a GPU
  const std::vector<double> sum = serial(r, false);
  for (const Exec& ex : backends()) {
    SCOPED_TRACE(ex.description());
    Buffer<unsigned> counter(space_of(ex.backend()), 1);
    const unsigned zero = 0;
    copy_bytes(counter.data(), &zero, sizeof zero);
    std::vector<double> want(3 * kSegments + 1, 0.0);
    for (int pass = 1; pass <= 2; ++pass) {
      for (int n = 0; n < 2 * kSegments; ++n) want[n] = pass * sum[n];
      for (int k = 0; k < kSegments; ++k) want[2 * kSegments + k] = want[2 * k] + want[2 * k + 1];
      want[3 * kSegments] = pass;
      const std::vector<double> got =
          onto(ex, std::vector<double>(3 * kSegments + 1, 0.0), [&](double* out) {
            for (int p = 0; p < pass; ++p)
              reduce_segments_into<2>(ex, r, kSegments, SumOp{}, Pairs{}, out,
                                      ThenOnce<AddPairs>{{out, kSegments}, counter.data()});
          });
      EXPECT_EQ(got, want) << pass << " pass(es)";
    }
  }
}

}  // namespace
}  // namespace staghorn
