// Initial conditions, evaluated once on the host at cell centres.
#include <cmath>

#include "models/hydromech/background_porosity.hpp"
#include "models/hydromech/hydromech.hpp"
#include "models/hydromech/initial_shape.hpp"
#include "models/hydromech/solitary_wave.hpp"

namespace staghorn::hydromech {

void HydroMech::set_initial(const io::json& ic, const materials::Options& materials) {
  const Grid& g = dec_.grid();
  const InitialShape shape(ic, g);
  const BackgroundPorosity background(materials, g, mat_);
  if (shape.type == "solitary_wave") require_solitary_wave(mat_, shape.amplitude, background);
  const SolitaryWave wave{shape.amplitude};
  const real delta = std::sqrt(mat_.k0 * mat_.eta0);  // compaction length

  std::vector<real> phi = phi_.to_host(), Pe = Pe_.to_host();
  const Int3 n = layout_.n, off = dec_.offset();
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j)
      for (int i = 0; i < n.x; ++i) {
        const int idx[3] = {i + off.x, j + off.y, k + off.z};
        real d[3];
        const real r2 = shape.offset(g, idx, d);
        const std::size_t c = layout_.index(i, j, k);
        phi[c] = background.at(cell_centre(g, idx).data());
        Pe[c] = 0;
        if (shape.type == "gaussian") phi[c] *= 1 + shape.amplitude * std::exp(-r2 / 2);
        if (shape.type == "solitary_wave") {
          double f, P;
          wave.at(d[up_] / delta, f, P);
          phi[c] = mat_.phi0 * f;
          Pe[c] = mat_.buoyancy * delta * P;
        }
      }
  phi_.from_host(phi);
  Pe_.from_host(Pe);
}

}  // namespace staghorn::hydromech
