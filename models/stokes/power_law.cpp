// The Stokes model's power-law viscosity: keys, fields, and the update inside the PT iterations
// (docs/models/stokes.md, "Power-law viscosity"). A kernel source: the update runs on the backend.
#include "models/stokes/power_law.hpp"

#include <cmath>

#include "core/boundary.hpp"
#include "core/dispatch.hpp"
#include "core/for_each.hpp"
#include "models/stokes/stiff_bodies/stiff_bodies.hpp"
#include "models/stokes/stokes.hpp"

namespace staghorn::stokes {

void PowerLawOptions::add_to(io::Schema& s) {
  using io::Type;
  PowerLawKeys::add_to(s, "stokes.power_law", "stokes.viscosity (the matrix's)");
  s.add("stokes.inclusion.power_law.n", Type::number, 1.0,
        "Stress exponent of the inclusion's power law (eta0 = stokes.inclusion.viscosity); cells "
        "at least half inside the inclusion take it")
      .at_least(1)
      .at_most(100);
  s.add("stokes.inclusion.power_law.eps_ref", Type::number, nullptr,
        "Reference strain rate of the inclusion's power law (null: the matrix's)")
      .above(0);
}

PowerLawOptions PowerLawOptions::from(const io::json& c) {
  using io::at_path;
  const PowerLawKeys keys = PowerLawKeys::from(c, "stokes.power_law");
  PowerLawOptions o;
  o.matrix = {keys.n, keys.eps_ref};
  o.inclusion.n = at_path(c, "stokes.inclusion.power_law.n").get<real>();
  const io::json& e = at_path(c, "stokes.inclusion.power_law.eps_ref");
  o.inclusion.eps_ref = e.is_null() ? o.matrix.eps_ref : e.get<real>();
  o.update = keys.update;
  o.interval = keys.interval;
  return o;
}

PowerLawFields::PowerLawFields(const Layout& l, Backend b)
    : eta0("eta0", Location::cell, l, b, "Pa s", "reference viscosity of the power law"),
      n("power_law_n", Location::cell, l, b, "1", "stress exponent of the power law"),
      eps_ref("eps_ref", Location::cell, l, b, "s-1", "reference strain rate of the power law"),
      mu_start("mu_start", Location::cell, l, b) {}

void Stokes::refresh_mu_max() {
  halo_.exchange({&mu_});
  fill_ghosts(ex_, dec_, mu_, zero_gradient_sides());
  dispatch<2, 3>("grid dimensions", dims(), [&](auto dim) {
    for_each(ex_, layout_.interior(),
             LocalMax<decltype(dim)::value>{mu_.view(), mu_max_.view(), mu_floor_});
  });
  halo_.exchange({&mu_max_});
  fill_ghosts(ex_, dec_, mu_max_, zero_gradient_sides());
}

void Stokes::update_viscosity() {
  dispatch<2, 3>("grid dimensions", dims(), [&](auto dim) {
    constexpr int D = decltype(dim)::value;
    for_each(ex_, layout_.interior(),
             PowerLawUpdate<D>{
                 {{physical_params(), state(), material()}, power_->law(), opt_.power_law.update}});
  });
  // The pseudo-steps follow the new viscosity (mu_max over the 3^d neighbourhood), and so do the
  // stiff bodies' corrections.
  refresh_mu_max();
  bodies_->rigid.update_pseudo();
}

pt::Residual Stokes::viscosity_residual() {
  const real local = dispatch<2, 3>("grid dimensions", dims(), [&](auto dim) {
    constexpr int D = decltype(dim)::value;
    return reduce(
        ex_, layout_.interior(), MaxOp{},
        ViscosityMismatch<D>{
            {{physical_params(), state(), material()}, power_->law(), opt_.power_law.update}});
  });
  return {"viscosity", dec_.comm().max(local), 1};
}

}  // namespace staghorn::stokes
