#pragma once
#include <string>
#include <vector>

#include "io/schema.hpp"

namespace staghorn::io {

// Reads a JSON config file. A missing file or malformed JSON throws ConfigError naming the file
// (and the line and column of a syntax error).
json load_json_file(const std::string& path);

// Applies one `--set path=value` override. `path` uses dots between objects and may end in an
// array index (grid.n[2]=1); `value` is parsed as JSON, or taken as a string if it is not JSON.
void apply_override(json& config, const std::string& assignment);

// The user's config with all overrides applied (not yet checked against a schema).
json load_config(const std::string& path, const std::vector<std::string>& overrides);

}  // namespace staghorn::io
