// GoogleTest entry point for tests that need MPI (all of Staghorn's do: the framework always runs
// under MPI, with one rank when started without a launcher).
#include <gtest/gtest.h>

#include "core/comm.hpp"

int main(int argc, char** argv) {
  staghorn::MpiSession mpi(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  // Only rank 0 reports, so that multi-rank output stays readable.
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  return RUN_ALL_TESTS();
}
