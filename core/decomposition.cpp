#include "core/decomposition.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace staghorn {

namespace {

const char* kAxis = "xyz";

// Whether `p` blocks along axis `a` are all at least as thick as the halo (and one cell); an
// inactive axis stays whole.
bool fits_axis(const Grid& grid, int a, int p, int halo) {
  return grid.active(a) ? grid.n[a] / p >= std::max(halo, 1) : p == 1;
}

// A kind of block along one axis: its cells and the halo cells it adds on that axis.
struct AxisBlock {
  long long cells, width;
  bool operator==(const AxisBlock& o) const { return cells == o.cells && width == o.width; }
};

// The distinct kinds of block along axis `a` split over d[a] ranks (at most four: with or without
// the extra cell, at a wall or inside).
std::vector<AxisBlock> axis_blocks(const Grid& grid, Int3 d, int a, int halo) {
  std::vector<AxisBlock> kinds;
  const int p = d[a];
  for (int c = 0; c < p; ++c) {
    // Faces exchanged: two on a periodic axis (with itself when whole), one per inner side on a
    // bounded one (walls take ghosts, not halos), none on an inactive axis.
    const int faces = !grid.active(a) ? 0 : grid.periodic[a] ? 2 : (c > 0) + (c < p - 1);
    const AxisBlock b{Decomposition::block_cells(grid.n[a], p, c),
                      static_cast<long long>(faces) * halo};
    if (std::find(kinds.begin(), kinds.end(), b) == kinds.end()) kinds.push_back(b);
  }
  return kinds;
}

// The largest cost(cells, widths) over the blocks of process grid d: every combination of the
// kinds along each axis is some rank's block.
template <class Cost>
long long busiest(const Grid& grid, Int3 d, int halo, Cost cost) {
  const std::vector<AxisBlock> x = axis_blocks(grid, d, 0, halo), y = axis_blocks(grid, d, 1, halo),
                               z = axis_blocks(grid, d, 2, halo);
  long long most = 0;
  for (const AxisBlock& bx : x)
    for (const AxisBlock& by : y)
      for (const AxisBlock& bz : z) most = std::max(most, cost(bx, by, bz));
  return most;
}

long long padded(const AxisBlock& x, const AxisBlock& y, const AxisBlock& z) {
  return (x.cells + x.width) * (y.cells + y.width) * (z.cells + z.width);
}

std::string extent(Int3 n) {
  return std::to_string(n.x) + "x" + std::to_string(n.y) + "x" + std::to_string(n.z);
}

void check_requested(const Grid& grid, Int3 req, int ranks, int halo) {
  if (req.volume() != ranks)
    throw Error("decomposition: process grid " + extent(req) + " does not match " +
                std::to_string(ranks) + " ranks");
  for (int a = 0; a < 3; ++a) {
    if (fits_axis(grid, a, req[a], halo)) continue;
    if (!grid.active(a))
      throw Error(std::string("decomposition: grid.n[") + std::to_string(a) +
                  "] = 1: an inactive axis cannot be split over " + std::to_string(req[a]) +
                  " ranks along " + kAxis[a]);
    throw Error(std::string("decomposition: grid.n[") + std::to_string(a) +
                "] = " + std::to_string(grid.n[a]) + " cells over " + std::to_string(req[a]) +
                " ranks along " + kAxis[a] + " leave blocks of " +
                std::to_string(grid.n[a] / req[a]) + " cells, fewer than the halo width " +
                std::to_string(std::max(halo, 1)));
  }
}

}  // namespace

Int3 Decomposition::largest_block(const Grid& grid, Int3 dims) {
  Int3 b;
  for (int a = 0; a < 3; ++a) b[a] = block_cells(grid.n[a], dims[a], 0);
  return b;
}

long long Decomposition::halo_cost(const Grid& grid, Int3 d, int halo) {
  return busiest(grid, d, halo, [](const AxisBlock& x, const AxisBlock& y, const AxisBlock& z) {
    return padded(x, y, z) - x.cells * y.cells * z.cells;
  });
}

long long Decomposition::padded_cost(const Grid& grid, Int3 d, int halo) {
  return busiest(grid, d, halo, padded);
}

std::vector<Int3> Decomposition::fitting_dims(const Grid& grid, int ranks, int halo) {
  std::vector<Int3> all;
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px) continue;
    for (int py = 1; py <= ranks / px; ++py) {
      if ((ranks / px) % py) continue;
      const Int3 d{px, py, ranks / px / py};
      bool fits = true;
      for (int a = 0; a < 3; ++a) fits = fits && fits_axis(grid, a, d[a], halo);
      if (fits) all.push_back(d);
    }
  }
  return all;
}

Int3 Decomposition::choose_dims(const Grid& grid, int ranks, int halo) {
  Int3 best{0, 0, 0};
  long long best_cost = std::numeric_limits<long long>::max();
  for (const Int3 d : fitting_dims(grid, ranks, halo)) {
    // `<=`: px and py ascend, so the last of equal costs has the most ranks along x, then y.
    const long long cost = padded_cost(grid, d, halo);
    if (cost <= best_cost) best_cost = cost, best = d;
  }
  return best;
}

Decomposition::Decomposition(const Grid& grid, const Comm& comm, Int3 requested, int halo)
    : grid_(grid), comm_(comm), halo_(halo) {
  const int ranks = comm.size();
  if (requested.volume() > 0) {
    check_requested(grid, requested, ranks, halo);
    dims_ = requested;
  } else {
    dims_ = choose_dims(grid, ranks, halo);
    if (dims_.volume() == 0)
      throw Error("decomposition: no process grid splits " + extent(grid.n) + " cells over " +
                  std::to_string(ranks) + " ranks with blocks no thinner than the halo width " +
                  std::to_string(std::max(halo, 1)));
  }
  place_ranks();
  coords_ = coords_of_rank_[comm.rank()];
  for (int a = 0; a < 3; ++a) {
    local_[a] = block_cells(grid.n[a], dims_[a], coords_[a]);
    offset_[a] = block_start(grid.n[a], dims_[a], coords_[a]);
  }
}

int Decomposition::rank_across(const Grid& grid, Int3 dims, const std::vector<int>& ranks,
                               Int3 block, Int3 dir) {
  Int3 c;
  for (int a = 0; a < 3; ++a) {
    c[a] = block[a] + dir[a];
    if (c[a] < 0 || c[a] >= dims[a]) {
      if (!grid.periodic[a] || !grid.active(a)) return MPI_PROC_NULL;
      c[a] = (c[a] + dims[a]) % dims[a];
    }
  }
  return ranks[c.x + dims.x * (c.y + dims.y * c.z)];
}

int Decomposition::neighbor(Int3 dir) const {
  return rank_across(grid_, dims_, rank_at_, coords_, dir);
}

namespace {
// Interleaves the bits of (x, y, z): nearby blocks get nearby codes.
unsigned long long morton(Int3 c) {
  unsigned long long code = 0;
  for (int b = 0; b < 21; ++b)
    for (int a = 0; a < 3; ++a)
      code |= static_cast<unsigned long long>((c[a] >> b) & 1) << (3 * b + a);
  return code;
}
}  // namespace

std::vector<Int3> Decomposition::blocks_by_rank(Int3 dims) {
  std::vector<Int3> blocks;
  for (int z = 0; z < dims.z; ++z)
    for (int y = 0; y < dims.y; ++y)
      for (int x = 0; x < dims.x; ++x) blocks.push_back({x, y, z});
  std::stable_sort(blocks.begin(), blocks.end(),
                   [](Int3 a, Int3 b) { return morton(a) < morton(b); });
  return blocks;
}

std::vector<int> Decomposition::ranks_by_block(Int3 dims) {
  const std::vector<Int3> blocks = blocks_by_rank(dims);
  std::vector<int> ranks(blocks.size());
  for (std::size_t r = 0; r < blocks.size(); ++r) {
    const Int3 c = blocks[r];
    ranks[c.x + dims.x * (c.y + dims.y * c.z)] = static_cast<int>(r);
  }
  return ranks;
}

void Decomposition::place_ranks() {
  coords_of_rank_ = blocks_by_rank(dims_);
  rank_at_ = ranks_by_block(dims_);
}

}  // namespace staghorn
