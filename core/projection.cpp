#include "core/projection.hpp"

#include <algorithm>

#include "core/decomposition.hpp"
#include "core/halo_exchange.hpp"

namespace staghorn::projection {

std::vector<RankWork> rank_work(const Grid& grid, Int3 dims, const HaloShape& halo,
                                int ranks_per_node) {
  const std::vector<Int3> blocks = Decomposition::blocks_by_rank(dims);
  const std::vector<int> ranks = Decomposition::ranks_by_block(dims);
  std::vector<RankWork> work(blocks.size());
  for (std::size_t r = 0; r < blocks.size(); ++r) {
    const Int3 c = blocks[r];
    Int3 b;
    for (int a = 0; a < 3; ++a) b[a] = Decomposition::block_cells(grid.n[a], dims[a], c[a]);
    RankWork& w = work[r];
    w.cells = b.volume();
    Int3 width;  // the halo's, on active axes
    for (int a = 0; a < 3; ++a) width[a] = grid.active(a) ? halo.width : 0;
    for (int z = -1; z <= 1; ++z)
      for (int y = -1; y <= 1; ++y)
        for (int x = -1; x <= 1; ++x) {
          const Int3 d{x, y, z};
          const int crossed = (x != 0) + (y != 0) + (z != 0);
          if (crossed == 0 || (crossed > 1 && !halo.corners)) continue;
          const int peer = Decomposition::rank_across(grid, dims, ranks, c, d);
          if (peer == MPI_PROC_NULL || peer == static_cast<int>(r)) continue;  // a wall, or itself
          if (crossed == 1)  // a face shared with another rank: the block is split across it
            for (int a = 0; a < 3; ++a)
              if (d[a] != 0) w.shell_faces[a] = b.volume() / b[a];
          const int route = peer / ranks_per_node == static_cast<int>(r) / ranks_per_node
                                ? Route::node
                                : Route::network;
          w.messages[route] += 1;
          const double cells = HaloExchange::send_region({b, width}, d).size();
          w.bytes[route] += cells * halo.fields * halo.value_bytes;
        }
  }
  return work;
}

Time iteration_time(const RankWork& w, const Costs& c) {
  Time t;
  t.compute_s = w.cells / c.cell_rate;
  for (int a = 0; a < 3; ++a) t.shell_s += c.shell_face_s[a] * w.shell_faces[a];
  for (int route : {Route::node, Route::network}) {
    const Link& l = c.links[route];
    const double send =
        w.messages[route] > 0 ? w.messages[route] * l.latency_s + w.bytes[route] / l.bandwidth : 0;
    t.comm_s = std::max(t.comm_s, send);
  }
  t.total_s = t.shell_s + std::max(t.compute_s, t.comm_s);
  return t;
}

Time slowest(const std::vector<RankWork>& ranks, const Costs& c) {
  Time worst;
  for (const RankWork& w : ranks) {
    const Time t = iteration_time(w, c);
    if (t.total_s > worst.total_s) worst = t;
  }
  return worst;
}

}  // namespace staghorn::projection
