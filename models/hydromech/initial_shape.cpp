#include "models/hydromech/initial_shape.hpp"

#include <cmath>

#include "core/error.hpp"

namespace staghorn::hydromech {

InitialShape::InitialShape(const io::json& ic, const Grid& g)
    : type(ic["type"].get<std::string>()), amplitude(ic["amplitude"].get<real>()) {
  const real sigma = ic["sigma"].get<real>();
  for (int a = 0; a < 3; ++a) {
    center[a] =
        ic["center"].is_null() ? g.origin[a] + g.length[a] / 2 : ic["center"][a].get<real>();
    sig[a] = sigma * ic["aspect"][a].get<real>();
  }
}

real InitialShape::offset(const Grid& g, const int idx[3], real d[3]) const {
  real r2 = 0;
  for (int a = 0; a < 3; ++a) d[a] = 0;
  for (int a = 0; a < g.dims(); ++a) {
    d[a] = g.coordinate(Location::cell, a, idx[a]) - center[a];
    if (g.periodic[a]) d[a] -= g.length[a] * std::round(d[a] / g.length[a]);
    r2 += d[a] * d[a] / (sig[a] * sig[a]);
  }
  return r2;
}

std::array<real, 3> cell_centre(const Grid& g, const int idx[3]) {
  std::array<real, 3> x;
  for (int a = 0; a < 3; ++a) x[a] = g.coordinate(Location::cell, a, idx[a]);
  return x;
}

void require_solitary_wave(const Material& m, real amplitude, const BackgroundPorosity& b) {
  if (!b.uniform())
    throw io::ConfigError(
        "hydromech.materials: the solitary_wave initial condition needs a uniform background "
        "(no phases, no file)");
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

}  // namespace staghorn::hydromech
