#pragma once
// Builds the MHD model from a config fragment, as `staghorn run` would, without files.
#include <complex>
#include <functional>
#include <memory>

#include "core/decomposition.hpp"
#include "models/mhd/mhd.hpp"
#include "models/registry.hpp"
#include "models/run_settings.hpp"

namespace staghorn::test {

using namespace std::complex_literals;

struct MhdRun {
  io::json config;
  RunSettings settings;
  Exec exec;
  std::unique_ptr<Decomposition> dec;
  std::unique_ptr<mhd::Mhd> model;

  explicit MhdRun(io::json user, Exec ex = Exec::cpu()) : exec(std::move(ex)) {
    user["model"] = "mhd";
    config = schema_for(find_model("mhd")).resolve(user);
    settings = RunSettings::from(config);
    const int halo = io::at_path(config, "mhd.order").get<int>() / 2;
    dec = std::make_unique<Decomposition>(settings.grid, Comm(), settings.dims, halo);
    model = std::make_unique<mhd::Mhd>(ModelContext{config, settings, *dec, exec});
    model->refresh();
  }

  // Advances all configured steps of time.dt; returns the RK3 stages taken.
  long long run() {
    long long stages = 0;
    for (long long s = 0; s < settings.steps; ++s) stages += model->advance(settings.dt).iterations;
    return stages;
  }

  // Global coordinate of the centre of local cell i along `axis`.
  double x(int axis, int i) const {
    return settings.grid.coordinate(Location::cell, axis, dec->offset()[axis] + i);
  }

  // Sets variable v to value(x, y, z) in the interior (halos: call model->refresh()).
  void set(int v, const std::function<double(double, double, double)>& value) {
    Field& f = model->var(v);
    std::vector<real> h = f.to_host();
    const Int3 n = f.layout().n;
    for (int k = 0; k < n.z; ++k)
      for (int j = 0; j < n.y; ++j)
        for (int i = 0; i < n.x; ++i)
          h[f.layout().index(i, j, k)] = value(x(0, i), x(1, j), x(2, k));
    f.from_host(h);
  }

  // (2 / N) sum f e^{-i k x} over a 1-D grid along x: the complex amplitude of mode k.
  std::complex<double> mode(int v, double k) const {
    const Field& f = model->var(v);
    const std::vector<real> h = f.to_host();
    const int n = f.layout().n.x;
    std::complex<double> sum = 0;
    for (int i = 0; i < n; ++i)
      sum += double(h[f.layout().index(i, 0, 0)]) * std::exp(-k * x(0, i) * 1i);
    return 2.0 * sum / static_cast<double>(n);
  }
};

}  // namespace staghorn::test
