#pragma once
// The models this build knows and the schema of each one's config (the run keys plus the
// model's): what the driver (models/app), the models' tests and the benchmarks look models up in.
#include <string>
#include <vector>

#include "models/model.hpp"

namespace staghorn {

// Every model this build knows, in the order `staghorn describe` lists them.
const std::vector<ModelInfo>& models();
// Throws ConfigError ("model: unknown model ...") naming the available ones.
const ModelInfo& find_model(const std::string& name);
// The run's keys plus the model's (and its solver's).
io::Schema schema_for(const ModelInfo& model);
// A JSON Schema of every model's config: the keys of the model that "model" names (diffusion
// when it is left out), for editors to complete and validate configs.
io::json config_json_schema();

}  // namespace staghorn
