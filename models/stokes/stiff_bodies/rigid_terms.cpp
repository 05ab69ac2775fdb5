#include "models/stokes/stiff_bodies/rigid_terms.hpp"

#include <algorithm>

namespace staghorn::stokes {

BodyFaces body_faces(const Decomposition& dec, const Field& label, const Field& mu_max,
                     const Field* rho, const std::array<real, 3>& g) {
  const Grid& grid = dec.grid();
  BodyFaces f{};
  f.label = label.view();
  f.mu_max = mu_max.view();
  f.offset = dec.offset();
  f.dims = grid.dims();
  if (rho != nullptr) f.rho = rho->view();
  for (int a = 0; a < 3; ++a) {
    f.dx[a] = a < grid.dims() ? static_cast<real>(grid.spacing(a)) : 0;
    f.cells[a] = grid.n[a];
    f.periodic[a] = grid.periodic[a] ? 1 : 0;
    f.g[a] = rho != nullptr ? g[a] : 0;
  }
  return f;
}

std::array<real, 3> box_centre(const Grid& g, const StiffBody& body) {
  std::array<real, 3> c{0, 0, 0};
  for (int a = 0; a < g.dims(); ++a)
    c[a] = g.origin[a] + real(0.5) * (body.lo[a] + body.hi[a]) * g.spacing(a);
  return c;
}

BodyAt body_at(const Grid& g, const StiffBody& body, real id) {
  // The lever arms from the centre of the body's box (any point would span the same motions; a
  // central one keeps the Gram matrix well conditioned).
  const std::array<real, 3> centre = box_centre(g, body);
  BodyAt b{id, {0, 0, 0}};
  for (int a = 0; a < g.dims(); ++a) b.base[a] = static_cast<real>(g.origin[a] - centre[a]);
  return b;
}

Region owned_box(const Decomposition& dec, const Layout& layout, const StiffBody& body) {
  Region r;
  for (int a = 0; a < 3; ++a) {
    // The box's faces reach one further on the high side.
    const int faces_hi = a < dec.grid().dims() ? body.hi[a] + 1 : body.hi[a];
    const int off = dec.offset()[a];
    r.lo[a] = std::max(body.lo[a] - off, 0);
    r.hi[a] = std::min(faces_hi - off, layout.n[a]);
  }
  return r;
}

}  // namespace staghorn::stokes
