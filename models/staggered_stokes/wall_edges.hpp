#pragma once
// Launches WallEdges (models/staggered_stokes/kernels.hpp) over every high wall of this rank's
// block: index n along the wall's axis, and up to n along the other axes' high walls too (the
// corners). Include only from kernel sources (it calls for_each).

#include "core/decomposition.hpp"
#include "core/for_each.hpp"
#include "models/staggered_stokes/kernels.hpp"

namespace staghorn::stokes {

template <int Dim, class P>
void update_wall_edges(const Exec& ex, const Decomposition& dec, const Layout& layout, const P& ps,
                       const State& out) {
  const Grid& g = dec.grid();
  for (int a = 0; a < Dim; ++a) {
    if (g.periodic[a] || !dec.at_high(a)) continue;
    Region r = layout.interior();
    r.lo[a] = layout.n[a];
    r.hi[a] = layout.n[a] + 1;
    for (int b = 0; b < Dim; ++b)
      if (b != a && !g.periodic[b] && dec.at_high(b)) r.hi[b] += 1;
    for_each(ex, r, WallEdges<Dim, P>{ps, out, a});
  }
}

}  // namespace staghorn::stokes
