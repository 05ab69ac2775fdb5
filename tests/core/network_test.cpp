// Network: the transport a run chooses, its errors, and the phase timer of the exchanges.
#include "core/network.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "core/halo_exchange.hpp"
#include "core/overlap.hpp"
#include "test_support.hpp"

namespace staghorn {
namespace {

using test::error_of;

TEST(Network, AutoOnTheCpuIsHostMpi) {
  const Network net(Comm(), Exec::cpu());
  EXPECT_EQ(net.kind(), TransportKind::mpi);
  EXPECT_EQ(net.description(), "mpi (host memory)");
}

TEST(Network, DeviceTransportsOnTheCpuAreRefusedOnEveryRank) {
  EXPECT_EQ(error_of([] { Network(Comm(), Exec::cpu(), "nccl"); }),
            "exchange.transport nccl: NCCL needs the cuda backend");
  EXPECT_EQ(error_of([] { Network(Comm(), Exec::cpu(), "mpi-device"); }),
            "exchange.transport mpi-device: mpi-device needs the cuda backend");
  EXPECT_NE(error_of([] {
              Network(Comm(), Exec::cpu(), "carrier-pigeon");
            }).find("unknown transport \"carrier-pigeon\""),
            std::string::npos);
}

TEST(PhaseTimer, OverlappingSpansEachCountInFull) {
  PhaseTimer t(Exec::cpu());
  const long long a = t.open(Phase::transfer, Lane::boundary);
  const long long b = t.open(Phase::compute, Lane::inner);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  t.close(b);
  t.close(a);
  t.add(Phase::wait, 0.5);
  const auto s = t.totals();
  EXPECT_GE(s[static_cast<int>(Phase::compute)], 0.019);
  EXPECT_GE(s[static_cast<int>(Phase::transfer)], s[static_cast<int>(Phase::compute)]);
  EXPECT_DOUBLE_EQ(s[static_cast<int>(Phase::wait)], 0.5);
  EXPECT_EQ(s[static_cast<int>(Phase::pack)], 0.0);
  t.reset();
  EXPECT_EQ(t.totals()[static_cast<int>(Phase::compute)], 0.0);
}

// An exchange on a run's network takes its transport and times its phases; with ranks to reach,
// the transfer is timed too.
TEST(Network, ExchangesReportTheirPhases) {
  const Comm world;
  Grid grid;
  grid.n = {8 * world.size(), 8, 1};
  grid.periodic = {true, true, false};
  const Decomposition dec(grid, world, {world.size(), 1, 1}, 1);
  Exec ex = Exec::cpu();
  ex.use_network(std::make_shared<Network>(world, ex));
  const Layout layout{dec.local_cells(), {1, 1, 0}};
  Field f("f", Location::cell, layout, ex.backend());
  HaloExchange halo(dec, layout, ex);
  EXPECT_EQ(halo.transport(), TransportKind::mpi);
  halo.exchange({&f});
  const auto s = ex.network()->timer().totals();
  EXPECT_GT(s[static_cast<int>(Phase::pack)], 0.0);
  EXPECT_GT(s[static_cast<int>(Phase::unpack)], 0.0);
  EXPECT_EQ(s[static_cast<int>(Phase::transfer)] > 0, world.size() > 1);
}

}  // namespace
}  // namespace staghorn
