// Comm's waits: with a timeout, a peer that never answers ends the wait with an error naming it,
// and a late peer within the timeout is waited for. NodeComm's gather.
#include "core/comm.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "core/error.hpp"
#include "test_support.hpp"

namespace staghorn {
namespace {

using test::error_of;

// Every rank waits on a message from the next rank that is never sent.
TEST(Comm, WaitOnASilentPeerEndsNamingIt) {
  const Comm comm = Comm().with_timeout(0.25);
  const int next = (comm.rank() + 1) % comm.size();
  double value = 0;
  std::vector<MPI_Request> r(1);
  MPI_Irecv(&value, 1, MPI_DOUBLE, next, 41, comm.get(), &r[0]);
  const auto start = std::chrono::steady_clock::now();
  bool timed_out = false;
  try {
    comm.wait_all(r, "test receive", {next});
  } catch (const PeerTimeout& e) {
    timed_out = true;
    EXPECT_EQ(std::string(e.what()), "test receive: still waiting on rank " + std::to_string(next) +
                                         " after 0.25 s (exchange.timeout_s): a rank stalled "
                                         "or was lost");
  }
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(timed_out);
  EXPECT_GE(waited, 0.25);
  EXPECT_LT(waited, 5.0);
  MPI_Cancel(&r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  comm.barrier();
}

// The previous rank sends 0.3 s late; a 30 s timeout waits for it and gets the value.
TEST(Comm, LatePeerWithinTheTimeoutIsWaitedFor) {
  const Comm comm = Comm().with_timeout(30);
  const int next = (comm.rank() + 1) % comm.size();
  const int prev = (comm.rank() + comm.size() - 1) % comm.size();
  double sent = 10.0 + comm.rank(), got = -1;
  std::vector<MPI_Request> r(2);
  MPI_Irecv(&got, 1, MPI_DOUBLE, prev, 42, comm.get(), &r[0]);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  MPI_Isend(&sent, 1, MPI_DOUBLE, next, 42, comm.get(), &r[1]);
  EXPECT_EQ(error_of([&] { comm.wait_all(r, "test exchange", {prev, next}); }), "<no error>");
  EXPECT_EQ(got, 10.0 + prev);
  EXPECT_EQ(comm.max(comm.rank()), comm.size() - 1);  // the collectives' polled path
  EXPECT_EQ(comm.sum(1LL), comm.size());
}

// Tests run on one node: the node's ranks are the job's, in the same order.
TEST(NodeComm, AllGathersEveryRanksTextInRankOrder) {
  const Comm comm;
  const NodeComm node(comm);
  EXPECT_EQ(node.size(), comm.size());
  EXPECT_EQ(node.rank(), comm.rank());
  EXPECT_EQ(comm.node_rank(), comm.rank());
  const std::vector<std::string> got = node.all("rank " + std::to_string(comm.rank()));
  ASSERT_EQ(static_cast<int>(got.size()), comm.size());
  for (int r = 0; r < comm.size(); ++r) EXPECT_EQ(got[r], "rank " + std::to_string(r));
  EXPECT_EQ(node.all(std::string(80, 'x'))[0], std::string(63, 'x'));  // cut, not overrun
}

TEST(Comm, WithTimeoutKeepsTheCommunicator) {
  const Comm comm;
  const Comm patient = comm.with_timeout(2.5);
  EXPECT_EQ(patient.get(), comm.get());
  EXPECT_EQ(patient.rank(), comm.rank());
  EXPECT_EQ(patient.timeout(), 2.5);
  EXPECT_EQ(comm.timeout(), 0);
}

// The vector reductions give each element what the scalar ones give it, NaN included.
TEST(Comm, VectorReductionsEqualTheScalarOnesElementByElement) {
  const Comm comm;
  const double r = comm.rank();
  const std::vector<double> local = {r, -3 * r, 0.5 + r * r, comm.rank() == 0 ? std::nan("") : r};
  const std::vector<double> max = comm.max(local), sum = comm.sum(local);
  ASSERT_EQ(max.size(), local.size());
  ASSERT_EQ(sum.size(), local.size());
  for (std::size_t i = 0; i + 1 < local.size(); ++i) {
    EXPECT_EQ(max[i], comm.max(local[i])) << i;
    EXPECT_EQ(sum[i], comm.sum(local[i])) << i;
  }
  EXPECT_TRUE(std::isnan(max.back()));
  EXPECT_TRUE(std::isnan(sum.back()));
  EXPECT_TRUE(comm.max(std::vector<double>{}).empty());
}

}  // namespace
}  // namespace staghorn
