#include "models/registry.hpp"

#include "models/diffusion/diffusion.hpp"
#include "models/hydromech/hydromech.hpp"
#include "models/mhd/mhd.hpp"
#include "models/run_settings.hpp"
#include "models/stokes/stokes.hpp"

namespace staghorn {

const std::vector<ModelInfo>& models() {
  static const std::vector<ModelInfo> all{diffusion::Diffusion::info(),
                                          hydromech::HydroMech::info(), mhd::Mhd::info(),
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
  add_run_options(s, model.units);
  model.add_options(s);
  return s;
}

namespace {

// The model a config that names none runs (the schema's default of "model").
std::string default_model() {
  const io::Schema schema = schema_for(models().front());
  for (const io::Option& o : schema.options())
    if (o.path == "model") return o.fallback.get<std::string>();
  return models().front().name;
}

}  // namespace

io::json config_json_schema() {
  const std::string fallback = default_model();
  io::json names = io::json::array(), branches = io::json::array();
  for (const auto& m : models()) {
    names.push_back(m.name);
    io::json names_it = {{"required", {"model"}}, {"properties", {{"model", {{"const", m.name}}}}}};
    // The default model also governs configs that do not name one.
    if (m.name == fallback)
      names_it = {{"anyOf", {names_it, {{"not", {{"required", {"model"}}}}}}}};
    branches.push_back({{"if", names_it}, {"then", schema_for(m).json_schema()}});
  }
  return {{"$schema", "http://json-schema.org/draft-07/schema#"},
          {"title", "Staghorn run configuration"},
          {"type", "object"},
          {"properties", {{"model", {{"enum", names}, {"default", fallback}}}}},
          {"allOf", branches}};
}

}  // namespace staghorn
