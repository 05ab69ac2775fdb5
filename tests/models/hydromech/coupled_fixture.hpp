#pragma once
// Builds the coupled hydromech variant from a config fragment, as `staghorn run` would, without
// files.
#include <memory>
#include <string>
#include <vector>

#include "core/decomposition.hpp"
#include "core/error.hpp"
#include "models/hydromech/coupled.hpp"
#include "models/registry.hpp"
#include "models/run_settings.hpp"

namespace staghorn::test {

struct CoupledRun {
  io::json config;
  RunSettings settings;
  Exec exec = Exec::cpu();
  std::unique_ptr<Decomposition> dec;
  std::unique_ptr<Model> owner;
  hydromech::CoupledHydroMech* model = nullptr;

  explicit CoupledRun(io::json user, Exec ex = Exec::cpu()) : exec(ex) {
    user["model"] = "hydromech";
    user["hydromech"]["variant"] = "coupled";
    user["solver"]["tol_mode"] = "absolute";
    const ModelInfo& info = find_model("hydromech");
    config = schema_for(info).resolve(user);
    settings = RunSettings::from(config);
    dec = std::make_unique<Decomposition>(settings.grid, Comm(), settings.dims);
    owner = info.create(ModelContext{config, settings, *dec, exec});
    model = dynamic_cast<hydromech::CoupledHydroMech*>(owner.get());
    if (!model) throw Error("hydromech.variant = coupled built another model");
    model->refresh();
  }

  long long run(long long steps = -1) {
    long long iterations = 0;
    for (long long s = 0; s < (steps < 0 ? settings.steps : steps); ++s)
      iterations += model->advance(settings.dt).iterations;
    return iterations;
  }

  // Porosity along x (a 1-D column).
  std::vector<real> phi() const {
    const Field& f = model->phi();
    const std::vector<real> all = f.to_host();
    std::vector<real> out;
    for (int i = 0; i < f.layout().n.x; ++i) out.push_back(all[f.layout().index(i, 0, 0)]);
    return out;
  }
  double x(int i) const { return settings.grid.coordinate(Location::cell, 0, i); }

  double diagnostic(const std::string& name) {
    for (const auto& d : model->diagnostics())
      if (d.first == name) return d.second;
    throw Error("no diagnostic " + name);
  }
};

}  // namespace staghorn::test
