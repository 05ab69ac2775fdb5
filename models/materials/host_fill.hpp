#pragma once
// Set-up on the host: a field evaluated at every point of its rank's padded block (ghosts
// included, so that walls and halos start consistent), then uploaded.

#include <vector>

#include "core/decomposition.hpp"
#include "core/field.hpp"

namespace staghorn::materials {

// field = f(x) at every point, x the point's coordinates at the field's location.
template <class F>
void set_field(Field& field, const Decomposition& dec, F f) {
  const Grid& g = dec.grid();
  const Layout& l = field.layout();
  std::vector<real> host = field.to_host();
  const Region all = l.all();
  const Int3 off = dec.offset();
  for (int k = all.lo.z; k < all.hi.z; ++k)
    for (int j = all.lo.y; j < all.hi.y; ++j)
      for (int i = all.lo.x; i < all.hi.x; ++i) {
        const int idx[3] = {i + off.x, j + off.y, k + off.z};
        real x[3];
        for (int a = 0; a < 3; ++a) x[a] = g.coordinate(field.location(), a, idx[a]);
        host[l.index(i, j, k)] = f(x);
      }
  field.from_host(host);
}

}  // namespace staghorn::materials
