#pragma once
// Builds the Stokes model from a config fragment, as `staghorn run` would, without files.
#include <memory>
#include <vector>

#include "core/decomposition.hpp"
#include "models/app/registry.hpp"
#include "models/app/settings.hpp"
#include "models/stokes/stokes.hpp"

namespace staghorn::test {

struct StokesRun {
  io::json config;
  app::RunSettings settings;
  Exec exec;
  std::unique_ptr<Decomposition> dec;
  std::unique_ptr<stokes::Stokes> model;

  explicit StokesRun(io::json user, Exec ex = Exec::cpu()) : exec(std::move(ex)) {
    user["model"] = "stokes";
    config = app::schema_for(app::find_model("stokes")).resolve(user);
    settings = app::RunSettings::from(config);
    dec = std::make_unique<Decomposition>(settings.grid, Comm(), settings.dims);
    model = std::make_unique<stokes::Stokes>(ModelContext{config, *dec, exec});
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

}  // namespace staghorn::test
