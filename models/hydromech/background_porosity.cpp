#include "models/hydromech/background_porosity.hpp"

#include <cmath>

namespace staghorn::hydromech {
namespace {

using materials::Property;
constexpr int kPhi = static_cast<int>(Property::porosity);
constexpr int kK = static_cast<int>(Property::permeability);

// k and phi are tied by the permeability law: a source may give one of them.
void refuse_both(const materials::Options& o) {
  for (const materials::PhaseOptions& p : o.phases)
    if (p.values[kPhi] && p.values[kK])
      throw io::ConfigError(p.key +
                            ": give porosity or permeability, not both (k = k0 "
                            "(phi/phi0)^n ties them)");
  if (!o.variables[kPhi].empty() && !o.variables[kK].empty())
    throw io::ConfigError(o.section +
                          ".variables: read porosity or permeability from the file, not both");
}

bool sets_permeability(const materials::Options& o) {
  bool any = !o.variables[kK].empty();
  for (const materials::PhaseOptions& p : o.phases) any = any || p.values[kK].has_value();
  return any;
}

}  // namespace

const std::vector<materials::Property>& material_properties() {
  static const std::vector<Property> p = {Property::porosity, Property::permeability};
  return p;
}

BackgroundPorosity::BackgroundPorosity(const materials::Options& o, const Grid& g,
                                       const Material& law)
    : law_(law) {
  if (o.empty()) return;
  refuse_both(o);
  by_permeability_ = sets_permeability(o);
  if (by_permeability_ && !(law.n > 0))
    throw io::ConfigError("hydromech.permeability.exponent: must be > 0 where " + o.section +
                          " sets a permeability (phi = phi0 (k/k0)^(1/n))");
  m_ = std::make_unique<materials::Materials>(o, g, std::array<real, 4>{0, 0, law.phi0, law.k0},
                                              o.subsamples.value_or(1));
}

// A source's permeability: its own, or that of its porosity by the law.
real BackgroundPorosity::permeability(int phase, const real y[3]) const {
  const bool own = phase >= 0 && m_->phases()[phase].values[kK].has_value();
  const bool porous = phase >= 0 && m_->phases()[phase].values[kPhi].has_value();
  if (own || (!porous && m_->from_file(Property::permeability)))
    return m_->value(phase, Property::permeability, y);
  if (!porous && !m_->from_file(Property::porosity)) return law_.k0;
  return law_.k0 * std::pow(m_->value(phase, Property::porosity, y) * law_.rphi0, law_.n);
}

real BackgroundPorosity::at(const real x[3]) const {
  if (!m_) return law_.phi0;
  if (!by_permeability_) return m_->mix(x, Property::porosity);
  const real k = m_->mix(x, materials::Mean::geometric,
                         [&](int phase, const real* y) { return permeability(phase, y); });
  return law_.phi0 * std::pow(k / law_.k0, 1 / law_.n);
}

}  // namespace staghorn::hydromech
