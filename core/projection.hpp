#pragma once
// The time of one iteration on rank counts no machine here offers (weak and strong scaling to
// 1024 GPUs, docs/campaigns.md "Projection"): the performance model of perf_model.hpp taken rank
// by rank over the process grid the decomposition makes. Each rank computes its block, computes its
// boundary shell apart (what hiding the halo costs), and sends its halo segments, each a message
// with a latency, over its node's links or the network; the halo hides behind the inner region.
// The costs come from measurements of 1, 2 and 4 GPUs (core/project_scaling.cpp).

#include <array>
#include <vector>

#include "core/grid.hpp"

namespace staghorn::projection {

// Where a message travels: between GPUs of one node, or to another node.
enum Route { node = 0, network = 1 };

// What one rank does per iteration.
struct RankWork {
  long long cells = 0;                     // of its block
  std::array<long long, 3> shell_faces{};  // cells of its block's face across each axis along
                                           // which it meets another rank (0 elsewhere)
  std::array<int, 2> messages{};           // halo messages it sends, by Route
  std::array<double, 2> bytes{};           // their bytes, by Route
};

// The halo as the model exchanges it: its width, `fields` values of `value_bytes` per halo cell,
// edges and corners too when `corners`.
struct HaloShape {
  int width = 1;
  bool corners = true;
  int fields = 1;
  int value_bytes = 8;
};

// Every rank's work on process grid `dims` (blocks of Decomposition::block_cells, ranks placed as
// Decomposition::blocks_by_rank, `ranks_per_node` consecutive ranks to a node). A periodic axis
// held by one rank exchanges with itself: a copy, no message, and no shell cost of its own (what
// the shell costs along such axes is measured into the split axes' cost per face cell).
std::vector<RankWork> rank_work(const Grid& grid, Int3 dims, const HaloShape& halo,
                                int ranks_per_node);

struct Link {
  double latency_s = 0;  // per message
  double bandwidth = 0;  // bytes / s per direction
};

struct Costs {
  double cell_rate = 0;                  // pi: cells per second of one GPU
  std::array<double, 3> shell_face_s{};  // seconds per face cell of the shell across each axis
  std::array<Link, 2> links;             // by Route
};

struct Time {
  double compute_s = 0, shell_s = 0, comm_s = 0, total_s = 0;
};

// One rank: t = shell + max(compute, comm). Messages on one route go one after the other; the two
// routes run at once; the halo hides behind the inner region, the shell's extra cost does not.
Time iteration_time(const RankWork& w, const Costs& c);
// The slowest rank's.
Time slowest(const std::vector<RankWork>& ranks, const Costs& c);

}  // namespace staghorn::projection
