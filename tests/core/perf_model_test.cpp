// The performance model: its arithmetic on hand-computed cases, the halo bytes it charges, and
// the link probe (a finite, positive bandwidth between two ranks).
#include "core/perf_model.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace staghorn {
namespace {

TEST(PerfModel, ComputeBoundWhenTheHaloHidesBehindTheInnerRegion) {
  PerfModel m;
  m.cell_rate = 1e9;       // 1 Gcell/s
  m.link_bandwidth = 1e9;  // 1 GB/s
  m.sequential_s = 1e-4;
  const auto p = m.predict(1e8, 1e7, 2);  // 0.1 s compute, 0.01 s halo
  ASSERT_TRUE(p.known);
  EXPECT_DOUBLE_EQ(p.compute_s, 0.1);
  EXPECT_DOUBLE_EQ(p.comm_s, 0.01);
  EXPECT_DOUBLE_EQ(p.total_s, 0.1 + 1e-4);
}

TEST(PerfModel, CommunicationBoundAndUnhiddenCases) {
  PerfModel m;
  m.cell_rate = 1e9, m.link_bandwidth = 1e8;
  EXPECT_DOUBLE_EQ(m.predict(1e6, 1e7, 4).total_s, 0.1);  // halo 0.1 s > compute 1 ms
  m.overlap = false;
  EXPECT_DOUBLE_EQ(m.predict(1e6, 1e7, 4).total_s, 0.1 + 1e-3);
}

TEST(PerfModel, OneRankIsPiAloneAndUnknownInputsGiveNoPrediction) {
  PerfModel m;
  m.cell_rate = 2e9;
  const auto one = m.predict(4e9, 1e9, 1);  // no link: the self-exchange is inside pi
  ASSERT_TRUE(one.known);
  EXPECT_DOUBLE_EQ(one.total_s, 2.0);
  EXPECT_FALSE(m.predict(4e9, 1e9, 2).known);  // beta unknown and a halo must travel
  m.cell_rate = 0;
  EXPECT_FALSE(m.predict(1, 0, 1).known);
}

TEST(PerfModel, HaloBytesAreTheBusiestRanksHaloCellsTimesFieldsTimesBytesPerValue) {
  Grid g;
  g.n = {64, 64, 64};
  g.periodic = {true, true, true};
  // Split in two along z: the padded block (66 x 66 x 34) minus the owned one (64 x 64 x 32).
  const double cells = 66.0 * 66 * 34 - 64.0 * 64 * 32;
  EXPECT_DOUBLE_EQ(halo_bytes(g, {1, 1, 2}, 1, 3), cells * 3 * sizeof(real));
}

TEST(PerfModel, LinkProbeMeasuresAPositiveBandwidthBetweenRanks) {
  const Comm comm;
  const double beta = probe_link_bandwidth(comm, 1 << 20, /*device_link=*/false, 5);
  if (comm.size() == 1) {
    EXPECT_EQ(beta, 0.0);
  } else {
    EXPECT_TRUE(std::isfinite(beta));
    EXPECT_GT(beta, 1e6);  // any link moves more than 1 MB/s
  }
  EXPECT_EQ(comm.max(beta), beta);  // every rank holds the same value
}

}  // namespace
}  // namespace staghorn
