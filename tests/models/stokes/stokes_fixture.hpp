#pragma once
// Builds the Stokes model from a config fragment, as `staghorn run` would, without files.
#include <cmath>
#include <memory>
#include <vector>

#include "core/decomposition.hpp"
#include "models/registry.hpp"
#include "models/run_settings.hpp"
#include "models/stokes/stokes.hpp"

namespace staghorn::test {

struct StokesRun {
  io::json config;
  RunSettings settings;
  Exec exec;
  std::unique_ptr<Decomposition> dec;
  std::unique_ptr<stokes::Stokes> model;

  explicit StokesRun(io::json user, Exec ex = Exec::cpu()) : exec(std::move(ex)) {
    user["model"] = "stokes";
    config = schema_for(find_model("stokes")).resolve(user);
    settings = RunSettings::from(config);
    dec = std::make_unique<Decomposition>(settings.grid, Comm(), settings.dims);
    model = std::make_unique<stokes::Stokes>(ModelContext{config, settings, *dec, exec});
    model->refresh();
  }

  // One solve; returns the PT iterations.
  long long solve() { return model->advance(settings.dt).iterations; }

  // Global coordinate of local point i along `axis` of a field at `loc`.
  double x(Location loc, int axis, int i) const {
    return settings.grid.coordinate(loc, axis, dec->offset()[axis] + i);
  }

  // Sets every point of a field (halos and ghosts included) to f(x, y, z).
  template <class F>
  void set(Field& field, F f) {
    const Layout& l = field.layout();
    std::vector<real> host = field.to_host();
    const Region all = l.all();
    for (int k = all.lo.z; k < all.hi.z; ++k)
      for (int j = all.lo.y; j < all.hi.y; ++j)
        for (int i = all.lo.x; i < all.hi.x; ++i)
          host[l.index(i, j, k)] =
              f(x(field.location(), 0, i), x(field.location(), 1, j), x(field.location(), 2, k));
    field.from_host(host);
  }

  // Calls f(value, x, y, z) for every point of `field` this rank owns (the closing face of a
  // bounded staggered axis included).
  template <class F>
  void for_owned(const Field& field, F f) const {
    const Layout& l = field.layout();
    const std::vector<real> host = field.to_host();
    Int3 n;
    for (int a = 0; a < 3; ++a) n[a] = dec->owned_points(field.location(), a);
    for (int k = 0; k < n.z; ++k)
      for (int j = 0; j < n.y; ++j)
        for (int i = 0; i < n.x; ++i)
          f(host[l.index(i, j, k)], x(field.location(), 0, i), x(field.location(), 1, j),
            x(field.location(), 2, k));
  }
};

// Velocity component `axis` of two runs on the same grid, over the points this rank owns: the
// largest difference, and the largest |value| of the reference run `ref`.
struct VelocityGap {
  double diff = 0, scale = 0;
};
inline VelocityGap velocity_gap(const StokesRun& run, const StokesRun& ref, int axis) {
  std::vector<double> v, w;
  run.for_owned(run.model->V(axis), [&](real x, double, double, double) { v.push_back(x); });
  ref.for_owned(ref.model->V(axis), [&](real x, double, double, double) { w.push_back(x); });
  VelocityGap g;
  for (std::size_t i = 0; i < v.size(); ++i) {
    g.diff = std::fmax(g.diff, std::fabs(v[i] - w[i]));
    g.scale = std::fmax(g.scale, std::fabs(w[i]));
  }
  return g;
}

}  // namespace staghorn::test
