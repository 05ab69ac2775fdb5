#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "io/schema.hpp"

namespace staghorn::app {

// What the command line asks for.
struct RunRequest {
  std::string config_path;
  std::vector<std::string> overrides;      // --set path=value
  std::optional<std::string> output_dir;   // --output DIR
  std::optional<std::string> restart;      // --restart FILE
};

// The user's config, overridden, checked against the model's schema and completed with defaults.
// Throws ConfigError naming the offending key.
io::json resolve_config(const RunRequest& request);

// `staghorn check` / `run --dry-run`: validates everything a run would (grid, backend,
// decomposition, restart file) and prints the resolved config and the decomposition. Writes nothing.
void check(const RunRequest& request, const Comm& comm, std::ostream& out);

// `staghorn run`: runs the model; returns the metrics record (also appended to metrics.jsonl).
// Nothing in the output directory is touched before every check has passed.
io::json run(const RunRequest& request, const Comm& comm, std::ostream& out);

}  // namespace staghorn::app
