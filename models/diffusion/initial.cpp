// Initial conditions, evaluated once on the host at cell centres.
#include <cmath>

#include "models/diffusion/diffusion.hpp"

namespace staghorn::diffusion {

void Diffusion::set_initial(const io::json& ic) {
  const Grid& g = dec_.grid();
  const std::string type = ic["type"].get<std::string>();
  const real amplitude = ic["amplitude"].get<real>();
  const real background = ic["background"].get<real>();
  const real sigma = ic["sigma"].get<real>();
  real center[3];
  for (int a = 0; a < 3; ++a)
    center[a] =
        ic["center"].is_null() ? g.origin[a] + g.length[a] / 2 : ic["center"][a].get<real>();

  std::vector<real> host = H_.to_host();
  const Int3 n = layout_.n, off = dec_.offset();
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j)
      for (int i = 0; i < n.x; ++i) {
        const int idx[3] = {i + off.x, j + off.y, k + off.z};
        real r2 = 0;
        bool inside = true;
        for (int a = 0; a < g.dims(); ++a) {
          real d = g.coordinate(Location::cell, a, idx[a]) - center[a];
          if (g.periodic[a]) d -= g.length[a] * std::round(d / g.length[a]);  // nearest image
          r2 += d * d;
          inside = inside && std::fabs(d) < sigma;
        }
        real v = background;
        if (type == "gaussian") v += amplitude * std::exp(-r2 / (2 * sigma * sigma));
        if (type == "box" && inside) v += amplitude;
        host[layout_.index(i, j, k)] = v;
      }
  H_.from_host(host);
}

}  // namespace staghorn::diffusion
