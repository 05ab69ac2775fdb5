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

}  // namespace staghorn::app
