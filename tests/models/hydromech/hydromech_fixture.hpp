#pragma once
// Builds the hydromech model from a config fragment, as `staghorn run` would, without files.
#include <memory>
#include <utility>

#include "core/decomposition.hpp"
#include "models/hydromech/hydromech.hpp"
#include "models/registry.hpp"
#include "models/run_settings.hpp"
#include "test_support.hpp"

namespace staghorn::test {

struct HydroMechRun {
  io::json config;
  RunSettings settings;
  Exec exec;
  std::unique_ptr<Decomposition> dec;
  std::unique_ptr<hydromech::HydroMech> model;

  explicit HydroMechRun(io::json user, Exec backend = Exec::cpu()) : exec(std::move(backend)) {
    user["model"] = "hydromech";
    config = schema_for(find_model("hydromech")).resolve(user);
    settings = RunSettings::from(config);
    dec = std::make_unique<Decomposition>(settings.grid, Comm(), settings.dims);
    model = std::make_unique<hydromech::HydroMech>(ModelContext{config, settings, *dec, exec});
    model->refresh();
  }

  // Advances `steps` steps (all configured ones by default); returns the total PT iterations.
  long long run(long long steps = -1) {
    long long iterations = 0;
    for (long long s = 0; s < (steps < 0 ? settings.steps : steps); ++s)
      iterations += model->advance(settings.dt).iterations;
    return iterations;
  }

  // Global coordinate of the centre of local cell i along `axis`.
  double x(int axis, int i) const {
    return settings.grid.coordinate(Location::cell, axis, dec->offset()[axis] + i);
  }

  double diagnostic(const std::string& name) {
    for (const auto& d : model->diagnostics())
      if (d.first == name) return d.second;
    throw Error("no diagnostic " + name);
  }
};

}  // namespace staghorn::test
