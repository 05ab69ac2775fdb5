#pragma once
#include <mpi.h>

#include <vector>

#include "core/comm.hpp"
#include "core/grid.hpp"

namespace staghorn {

// Splits the global grid into equal blocks, one per rank, on a process grid P = (px, py, pz).
// P minimises the halo cells of the busiest rank over all factorisations of the rank count that
// divide the grid evenly (Pekkila et al. 2022, Eq. 5-7), unless the caller fixes it. Inactive axes
// (n = 1) are never split.
class Decomposition {
 public:
  Decomposition(const Grid& grid, const Comm& comm, Int3 requested = {0, 0, 0}, int halo = 1);

  const Grid& grid() const { return grid_; }
  const Comm& comm() const { return comm_; }
  Int3 dims() const { return dims_; }
  Int3 coords() const { return coords_; }
  Int3 local_cells() const { return local_; }
  Int3 offset() const { return offset_; }
  int halo() const { return halo_; }
  // Halo width along an axis: none on inactive axes.
  int halo(int axis) const { return grid_.active(axis) ? halo_ : 0; }

  // Rank of the neighbour in direction `dir` (components in -1, 0, 1), or MPI_PROC_NULL at a
  // bounded edge of the domain. A periodic axis with one rank is its own neighbour.
  int neighbor(Int3 dir) const;
  bool at_low(int axis) const { return coords_[axis] == 0; }
  bool at_high(int axis) const { return coords_[axis] == dims_[axis] - 1; }

  // Points of a field at `loc` this rank owns along `axis` (the last rank of a bounded staggered
  // axis owns the closing face).
  int owned_points(Location loc, int axis) const {
    return local_[axis] + (grid_.points(loc, axis) > grid_.n[axis] && at_high(axis) ? 1 : 0);
  }

  // Halo cells of the busiest rank on process grid `dims`: the cells of its padded block it does
  // not own, prod(n_a / p_a + w_a) - prod(n_a / p_a), faces, edges and corners. w_a is the halo
  // width times the faces exchanged along a: two, one on a bounded axis split in two, none on a
  // bounded axis left whole or an inactive one. On periodic axes this is Q / 2 of their Eq. 7.
  static long long halo_cost(const Grid& grid, Int3 dims, int halo);
  // The process grid the constructor picks for `ranks` ranks: exhaustive search for the least
  // halo_cost among even splits with blocks no thinner than the halo; {0, 0, 0} if none exists.
  // Ties (permutations of one block shape) go to the most ranks along x, then y, as their table
  // A.1 lists them.
  static Int3 choose_dims(const Grid& grid, int ranks, int halo);

 private:
  void place_ranks();

  Grid grid_;
  Comm comm_;
  std::vector<Int3> coords_of_rank_;  // block of each rank, Morton order
  std::vector<int> rank_at_;          // rank of each block, x fastest
  int halo_;
  Int3 dims_, coords_, local_, offset_;
};

}  // namespace staghorn
