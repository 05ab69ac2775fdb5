#pragma once
// Builds the diffusion model from a config fragment, as `staghorn run` would, without files.
#include <memory>

#include "core/decomposition.hpp"
#include "models/diffusion/diffusion.hpp"
#include "models/registry.hpp"
#include "models/run_settings.hpp"

namespace staghorn::test {

struct DiffusionRun {
  io::json config;
  RunSettings settings;
  Exec exec;
  std::unique_ptr<Decomposition> dec;
  std::unique_ptr<diffusion::Diffusion> model;

  explicit DiffusionRun(io::json user, Exec ex = Exec::cpu()) : exec(std::move(ex)) {
    user["model"] = "diffusion";
    config = schema_for(find_model("diffusion")).resolve(user);
    settings = RunSettings::from(config);
    dec = std::make_unique<Decomposition>(settings.grid, Comm(), settings.dims);
    model = std::make_unique<diffusion::Diffusion>(ModelContext{config, settings, *dec, exec});
    model->refresh();
  }

  // Advances all configured steps; returns the total PT iterations.
  long long run() {
    long long iterations = 0;
    for (long long s = 0; s < settings.steps; ++s)
      iterations += model->advance(settings.dt).iterations;
    return iterations;
  }

  // Interior values of H on this rank, x fastest.
  std::vector<real> interior() const {
    const Field& H = model->H();
    const std::vector<real> all = H.to_host();
    std::vector<real> out;
    const Int3 n = H.layout().n;
    for (int k = 0; k < n.z; ++k)
      for (int j = 0; j < n.y; ++j)
        for (int i = 0; i < n.x; ++i) out.push_back(all[H.layout().index(i, j, k)]);
    return out;
  }

  // Global coordinate of the centre of local cell (i, j, k) along `axis`.
  double x(int axis, int i) const {
    return settings.grid.coordinate(Location::cell, axis, dec->offset()[axis] + i);
  }
};

}  // namespace staghorn::test
