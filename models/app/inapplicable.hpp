#pragma once
// Keys a user set that this run cannot apply (silently ignoring them would hide a mistake): a
// boundary condition on a periodic or inactive axis, a 3-D-only kernel on a 2-D grid.

#include <string>
#include <vector>

#include "io/schema.hpp"
#include "models/run_settings.hpp"

namespace staghorn::app {

// One line per key of `user` (the config as written, overrides applied) that the run's settings
// make moot, naming the key and why.
std::vector<std::string> inapplicable_keys(const io::json& user, const RunSettings& run);

}  // namespace staghorn::app
