#pragma once
// The background porosity of both hydro-mechanical variants from hydromech.materials: phases and a
// file that set porosity or permeability, mapped to the model's one material field, the porosity
// (permeability k = k0 (phi/phi0)^n, so a permeability stands for phi = phi0 (k/k0)^(1/n)). The
// initial condition's shape multiplies it (docs/models/hydromech.md, "Materials").

#include <memory>

#include "core/grid.hpp"
#include "models/hydromech/physics.hpp"
#include "models/materials/materials.hpp"

namespace staghorn::hydromech {

// The material properties hydromech.materials accepts.
const std::vector<materials::Property>& material_properties();

class BackgroundPorosity {
 public:
  // ConfigError naming the key: a phase or file with both porosity and permeability, a
  // permeability with exponent 0, bad geometry or file (materials::Materials).
  BackgroundPorosity(const materials::Options& o, const Grid& g, const Material& law);
  // phi0 without materials (the same bits as before they existed); else the cell around x mixed
  // arithmetically in porosity, or geometrically in permeability where any source sets
  // permeability.
  real at(const real x[3]) const;
  bool uniform() const { return !m_; }

 private:
  real permeability(int phase, const real y[3]) const;
  Material law_;
  std::unique_ptr<materials::Materials> m_;
  bool by_permeability_ = false;
};

}  // namespace staghorn::hydromech
