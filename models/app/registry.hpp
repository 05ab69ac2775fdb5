#pragma once
#include <string>
#include <vector>

#include "models/model.hpp"

namespace staghorn::app {

// Every model this build knows, in the order `staghorn describe` lists them.
const std::vector<ModelInfo>& models();
// Throws ConfigError ("model: unknown model ...") naming the available ones.
const ModelInfo& find_model(const std::string& name);
// The run's keys plus the model's (and its solver's).
io::Schema schema_for(const ModelInfo& model);
// A JSON Schema of every model's config: the keys of the model that "model" names (diffusion
// when it is left out), for editors to complete and validate configs.
io::json config_json_schema();

}  // namespace staghorn::app
