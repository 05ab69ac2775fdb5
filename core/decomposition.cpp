#include "core/decomposition.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "core/error.hpp"

namespace staghorn {

Int3 Decomposition::choose_dims(const Grid& grid, int ranks, int halo) {
  Int3 best{0, 0, 0};
  long long best_cost = std::numeric_limits<long long>::max();
  for (int px = 1; px <= ranks; ++px) {
    if (ranks % px) continue;
    for (int py = 1; py <= ranks / px; ++py) {
      if ((ranks / px) % py) continue;
      const Int3 d{px, py, ranks / px / py};
      bool fits = true;
      for (int a = 0; a < 3; ++a)
        fits = fits && grid.n[a] % d[a] == 0 &&
               (grid.active(a) ? grid.n[a] / d[a] >= halo : d[a] == 1);
      if (!fits) continue;
      // `<=`: px and py ascend, so the last of equal costs has the most ranks along x, then y.
      const long long cost = halo_cost(grid, d, halo);
      if (cost <= best_cost) best_cost = cost, best = d;
    }
  }
  return best;
}

namespace {

const char* kAxis = "xyz";

void check_requested(const Grid& grid, Int3 req, int ranks) {
  if (req.volume() != ranks)
    throw Error("decomposition: process grid " + std::to_string(req.x) + "x" +
                std::to_string(req.y) + "x" + std::to_string(req.z) + " does not match " +
                std::to_string(ranks) + " ranks");
  for (int a = 0; a < 3; ++a)
    if (grid.n[a] % req[a] != 0)
      throw Error(std::string("decomposition: grid.n[") + std::to_string(a) +
                  "] = " + std::to_string(grid.n[a]) + " cells do not split evenly over " +
                  std::to_string(req[a]) + " ranks along " + kAxis[a]);
}

}  // namespace

long long Decomposition::halo_cost(const Grid& grid, Int3 d, int halo) {
  long long padded = 1, owned = 1;
  for (int a = 0; a < 3; ++a) {
    // Faces the busiest rank exchanges along a: two, but one when a bounded axis is split in two
    // (both ranks then sit at a wall), none on a whole bounded axis (walls take ghosts, not halos).
    const int faces = !grid.active(a) ? 0 : grid.periodic[a] || d[a] > 2 ? 2 : d[a] - 1;
    const long long n = grid.n[a] / d[a];
    padded *= n + static_cast<long long>(faces) * halo;
    owned *= n;
  }
  return padded - owned;
}

Decomposition::Decomposition(const Grid& grid, const Comm& comm, Int3 requested, int halo)
    : grid_(grid), comm_(comm), halo_(halo) {
  const int ranks = comm.size();
  if (requested.volume() > 0) {
    check_requested(grid, requested, ranks);
    dims_ = requested;
  } else {
    dims_ = choose_dims(grid, ranks, halo);
    if (dims_.volume() == 0)
      throw Error("decomposition: no process grid splits " + std::to_string(grid.n.x) + "x" +
                  std::to_string(grid.n.y) + "x" + std::to_string(grid.n.z) +
                  " cells evenly over " + std::to_string(ranks) +
                  " ranks with blocks no thinner "
                  "than the halo width " +
                  std::to_string(halo));
  }
  place_ranks();
  coords_ = coords_of_rank_[comm.rank()];
  for (int a = 0; a < 3; ++a) {
    local_[a] = grid.n[a] / dims_[a];
    offset_[a] = coords_[a] * local_[a];
    if (grid.active(a) && local_[a] < halo_)
      throw Error(std::string("decomposition: ") + std::to_string(local_[a]) +
                  " cells per rank along " + kAxis[a] + " are fewer than the halo width " +
                  std::to_string(halo_));
  }
}

int Decomposition::neighbor(Int3 dir) const {
  Int3 c;
  for (int a = 0; a < 3; ++a) {
    c[a] = coords_[a] + dir[a];
    if (c[a] < 0 || c[a] >= dims_[a]) {
      if (!grid_.periodic[a] || !grid_.active(a)) return MPI_PROC_NULL;
      c[a] = (c[a] + dims_[a]) % dims_[a];
    }
  }
  return rank_at_[c.x + dims_.x * (c.y + dims_.y * c.z)];
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

// Ranks take blocks in Morton (Z-) order, so that consecutive ranks, which launchers put on the
// same node, hold neighbouring blocks and share faces.
void Decomposition::place_ranks() {
  for (int z = 0; z < dims_.z; ++z)
    for (int y = 0; y < dims_.y; ++y)
      for (int x = 0; x < dims_.x; ++x) coords_of_rank_.push_back({x, y, z});
  std::stable_sort(coords_of_rank_.begin(), coords_of_rank_.end(),
                   [](Int3 a, Int3 b) { return morton(a) < morton(b); });
  rank_at_.assign(coords_of_rank_.size(), 0);
  for (std::size_t r = 0; r < coords_of_rank_.size(); ++r) {
    const Int3 c = coords_of_rank_[r];
    rank_at_[c.x + dims_.x * (c.y + dims_.y * c.z)] = static_cast<int>(r);
  }
}

}  // namespace staghorn
