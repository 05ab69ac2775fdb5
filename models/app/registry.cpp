#include "models/app/registry.hpp"

#include "models/app/settings.hpp"
#include "models/diffusion/diffusion.hpp"
#include "models/hydromech/hydromech.hpp"
#include "models/mhd/mhd.hpp"
#include "models/stokes/stokes.hpp"

namespace staghorn::app {

const std::vector<ModelInfo>& models() {
  static const std::vector<ModelInfo> all{diffusion::Diffusion::info(),
                                          hydromech::HydroMech::info(),
                                          mhd::Mhd::info(),
                                          stokes::Stokes::info()};
  return all;
}

const ModelInfo& find_model(const std::string& name) {
  std::string names;
  for (const auto& m : models()) {
    if (m.name == name) return m;
    names += (names.empty() ? "" : ", ") + m.name;
  }
  throw io::ConfigError("model: unknown model \"" + name + "\" (available: " + names + ")");
}

io::Schema schema_for(const ModelInfo& model) {
  io::Schema s;
  add_run_options(s);
  model.add_options(s);
  return s;
}

}  // namespace staghorn::app
