#pragma once
// Continuing a run from a snapshot (--restart, the key restart).

#include <string>

#include "core/decomposition.hpp"
#include "io/schema.hpp"
#include "models/model.hpp"
#include "models/run_settings.hpp"

namespace staghorn::app {

// Reads the snapshot `run.restart` into the model's state and checks it before anything is
// written: the run's model (ConfigError otherwise), a step of 0 to 2^31 - 1 and a finite time, the
// numbers the model carries from step to step (Model::set_carried_state: each within its range),
// every value finite (a corrupt file or a broken state: ConfigError naming the variable; NetCDF-4
// checksums catch bit-rot on reading), and a warning on rank 0 for each key of the model's physics
// or grid in which the run's resolved `config` differs from the config the snapshot was made
// with. Collective. Returns the snapshot's step and time.
LoopState load_restart(const RunSettings& run, const io::json& config, const Decomposition& dec,
                       const Exec& ex, Model& model);

}  // namespace staghorn::app
