#include <unistd.h>
#pragma once
// A scratch directory shared by all ranks of a test, removed at the end.
#include <mpi.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace staghorn::test {

class TempDir {
 public:
  explicit TempDir(const std::string& tag) {
    int rank = 0, id = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) id = static_cast<int>(::getpid());
    MPI_Bcast(&id, 1, MPI_INT, 0, MPI_COMM_WORLD);
    root_ = std::filesystem::temp_directory_path() / ("staghorn-" + tag + "-" + std::to_string(id));
    if (rank == 0) std::filesystem::create_directories(root_);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~TempDir() {
    MPI_Barrier(MPI_COMM_WORLD);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::error_code ec;
    if (rank == 0) std::filesystem::remove_all(root_, ec);
  }
  std::string path(const std::string& name = "") const { return (root_ / name).string(); }
  // Writes a file (rank 0) and returns its path, visible to all ranks on return.
  std::string file(const std::string& name, const std::string& text) const {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) std::ofstream(root_ / name) << text;
    MPI_Barrier(MPI_COMM_WORLD);
    return path(name);
  }

 private:
  std::filesystem::path root_;
};

}  // namespace staghorn::test
