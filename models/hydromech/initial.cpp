// Initial conditions, evaluated once on the host at cell centres.
#include <cmath>

#include "core/error.hpp"
#include "models/hydromech/hydromech.hpp"
#include "models/hydromech/solitary_wave.hpp"

namespace staghorn::hydromech {
namespace {

// The solitary wave's assumptions, checked with the keys that break them named.
void require_solitary_wave_material(const Material& m, double amplitude) {
  if (m.n != 3)
    throw io::ConfigError(
        "hydromech.permeability.exponent: the solitary_wave initial condition "
        "needs n = 3");
  if (m.m != 0)
    throw io::ConfigError(
        "hydromech.bulk_viscosity.exponent: the solitary_wave initial condition "
        "needs m = 0 (constant bulk viscosity)");
  if (m.weakening != 1)
    throw io::ConfigError(
        "hydromech.bulk_viscosity.decompaction_weakening: the solitary_wave "
        "initial condition needs R = 1");
  if (!(amplitude > 1))
    throw io::ConfigError("hydromech.initial.amplitude: the solitary wave needs phi_max/phi0 > 1");
}

}  // namespace

void HydroMech::set_initial(const io::json& ic) {
  const Grid& g = dec_.grid();
  const std::string type = ic["type"].get<std::string>();
  const real amplitude = ic["amplitude"].get<real>();
  const real sigma = ic["sigma"].get<real>();
  real center[3], sig[3];
  for (int a = 0; a < 3; ++a) {
    center[a] =
        ic["center"].is_null() ? g.origin[a] + g.length[a] / 2 : ic["center"][a].get<real>();
    sig[a] = sigma * ic["aspect"][a].get<real>();
  }
  if (type == "solitary_wave") require_solitary_wave_material(mat_, amplitude);
  const SolitaryWave wave{amplitude};
  const real delta = std::sqrt(mat_.k0 * mat_.eta0);  // compaction length

  std::vector<real> phi = phi_.to_host(), Pe = Pe_.to_host();
  const Int3 n = layout_.n, off = dec_.offset();
  for (int k = 0; k < n.z; ++k)
    for (int j = 0; j < n.y; ++j)
      for (int i = 0; i < n.x; ++i) {
        const int idx[3] = {i + off.x, j + off.y, k + off.z};
        real d[3] = {0, 0, 0}, r2 = 0;
        for (int a = 0; a < g.dims(); ++a) {
          d[a] = g.coordinate(Location::cell, a, idx[a]) - center[a];
          if (g.periodic[a]) d[a] -= g.length[a] * std::round(d[a] / g.length[a]);
          r2 += d[a] * d[a] / (sig[a] * sig[a]);
        }
        const std::size_t c = layout_.index(i, j, k);
        phi[c] = mat_.phi0;
        Pe[c] = 0;
        if (type == "gaussian") phi[c] *= 1 + amplitude * std::exp(-r2 / 2);
        if (type == "solitary_wave") {
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
