#pragma once
#include <mpi.h>

#include <vector>

#include "core/comm.hpp"
#include "core/grid.hpp"

namespace staghorn {

// Splits the global grid into blocks, one per rank, on a process grid P = (px, py, pz). Along an
// axis of n cells over p ranks the first n % p blocks hold one cell more than the others, so any
// grid splits over any rank count whose blocks are no thinner than the halo, and blocks differ by
// at most one cell per axis. P minimises the cells of the busiest rank's padded block over all
// factorisations of the rank count (for even splits the halo cost of Pekkila et al. 2022, Eq.
// 5-7), unless the caller fixes it. Inactive axes (n = 1) are never split.
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

  // Cells of block `c` of `p` along an axis of `n` cells, and the global index of its first cell.
  static int block_cells(int n, int p, int c) { return n / p + (c < n % p ? 1 : 0); }
  static int block_start(int n, int p, int c) { return c * (n / p) + (c < n % p ? c : n % p); }
  // The largest block of process grid `dims` (the most work a rank has), per axis.
  static Int3 largest_block(const Grid& grid, Int3 dims);
  // The block (process coordinates) of each rank, by rank: Morton (Z-) order, so that consecutive
  // ranks, which launchers put on the same node, hold neighbouring blocks.
  static std::vector<Int3> blocks_by_rank(Int3 dims);
  // Its inverse: the rank of each block, x fastest.
  static std::vector<int> ranks_by_block(Int3 dims);
  // The rank across direction `dir` from `block` (ranks: ranks_by_block), or MPI_PROC_NULL at a
  // bounded edge of the domain; a periodic axis wraps (one rank: itself).
  static int rank_across(const Grid& grid, Int3 dims, const std::vector<int>& ranks, Int3 block,
                         Int3 dir);

  // Rank of the neighbour in direction `dir` (components in -1, 0, 1), or MPI_PROC_NULL at a
  // bounded edge of the domain. A periodic axis with one rank is its own neighbour.
  int neighbor(Int3 dir) const;
  // Whether `axis` is periodic and held by this rank alone: its halo is the block's own other side.
  bool wraps_onto_itself(int axis) const { return grid_.periodic[axis] && dims_[axis] == 1; }
  bool at_low(int axis) const { return coords_[axis] == 0; }
  bool at_high(int axis) const { return coords_[axis] == dims_[axis] - 1; }

  // Points of a field at `loc` this rank owns along `axis` (the last rank of a bounded staggered
  // axis owns the closing face).
  int owned_points(Location loc, int axis) const {
    return local_[axis] + (grid_.points(loc, axis) > grid_.n[axis] && at_high(axis) ? 1 : 0);
  }

  // Halo cells of the busiest rank on process grid `dims`: the most cells of a padded block that
  // its rank does not own, prod(b_a + w_a) - prod(b_a) over its block b, faces, edges and
  // corners. w_a is the halo width times the faces the block exchanges along a: two on a periodic
  // axis (one rank exchanges with itself), one for a block at one wall of a bounded axis, none on
  // a bounded axis left whole or an inactive one. On even periodic splits this is Q / 2 of Eq. 7.
  static long long halo_cost(const Grid& grid, Int3 dims, int halo);
  // Cells of the busiest rank's padded block, the most over ranks of prod(b_a + w_a): what it
  // computes and what it receives. On even splits every block holds N / P cells, and this is
  // N / P + halo_cost (Eq. 7's order); on uneven ones a block's extra cells weigh too.
  static long long padded_cost(const Grid& grid, Int3 dims, int halo);
  // Every process grid of `ranks` ranks whose blocks are no thinner than the halo and that leaves
  // inactive axes whole, px ascending, then py.
  static std::vector<Int3> fitting_dims(const Grid& grid, int ranks, int halo);
  // The process grid the constructor picks for `ranks` ranks: exhaustive search for the least
  // padded_cost among splits with blocks no thinner than the halo; {0, 0, 0} if none exists.
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
