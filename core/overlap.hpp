#pragma once
// Hiding communication behind computation: the cells whose values neighbours need (the boundary
// shell) are computed first on the high-priority boundary lane, their halo starts moving, and the
// inner region is computed on the inner lane meanwhile.

#include <vector>

#include "core/halo_exchange.hpp"
#include "core/network.hpp"

namespace staghorn {

// A block's interior split into a boundary shell (the cells within `width` of its sides along
// each axis where width > 0, the whole axis where the block is no thicker than 2 width; disjoint
// slabs, the two of x first, then y, then z) and the inner region.
struct ShellSplit {
  Region interior;
  std::vector<Region> shell;
  Region inner;
  // Per wave of the exchange it was made for (split_for): how many of the first shell slabs its
  // segments read, so that it leaves as soon as they are computed. Empty: after the whole shell.
  std::vector<std::size_t> ready;
};

ShellSplit split_shell(const Region& interior, Int3 width);

// The split for hiding `halo`: a shell of `width` along every axis the exchange crosses (values
// sent must be computed before they are packed), and when each of its waves may leave. Throws
// std::logic_error if a sent region is not all in the shell.
ShellSplit split_for(const HaloExchange& halo, const Region& interior, Int3 width);

// How many of the first shell slabs wave `wave` of `halo` waits for (all of them for a split that
// was not made for it).
std::size_t slabs_read(const ShellSplit& split, const HaloExchange& halo, int wave);

// Runs `work` (kernels queued on `lane`), timed as compute when the run has a network.
template <class Work>
void timed_compute(const Exec& ex, Lane lane, Work&& work) {
  Network* net = ex.network();
  const long long span = net ? net->timer().open(Phase::compute, lane) : -1;
  work();
  if (span >= 0) net->timer().close(span);
}

// Computes new values of `fields` with update(region, lane) over the whole interior and fills
// their halos. With `hide`, the shell is computed on the boundary lane and exchanged while the
// inner region is computed; without, everything is computed and then exchanged. When the exchange
// sends segment by segment, each wave leaves once the shell slabs it reads are computed, the
// next slabs being computed meanwhile. All give the same values to the bit (the same kernels on the
// same cells).
template <class Update>
void update_and_exchange(const Exec& ex, HaloExchange& halo, const ShellSplit& split,
                         const std::vector<Field*>& fields, bool hide, Update&& update) {
  if (!hide) {
    timed_compute(ex, Lane::inner, [&] { update(split.interior, Lane::inner); });
    halo.exchange(fields);
    return;
  }
  ex.order(Lane::inner, Lane::boundary);  // the inputs are complete on both lanes
  if (halo.waves() == 1) {
    timed_compute(ex, Lane::boundary, [&] {
      for (const Region& r : split.shell) update(r, Lane::boundary);
    });
    halo.begin(fields);
  } else {
    int wave = 0;
    auto send_ready = [&](std::size_t computed) {
      for (; wave < halo.waves() && slabs_read(split, halo, wave) <= computed; ++wave)
        halo.begin_wave(fields, wave);
    };
    send_ready(0);
    for (std::size_t i = 0; i < split.shell.size(); ++i) {
      timed_compute(ex, Lane::boundary, [&] { update(split.shell[i], Lane::boundary); });
      send_ready(i + 1);
    }
  }
  timed_compute(ex, Lane::inner, [&] { update(split.inner, Lane::inner); });
  halo.end(fields);
  ex.order(Lane::boundary, Lane::inner);  // the shell is complete for what follows on either lane
}

}  // namespace staghorn
