#pragma once
// The Stokes model's power-law viscosity (docs/models/stokes.md, "Power-law viscosity"): its keys
// and the cell fields of its flow law. The pointwise formulas are in
// models/staggered_stokes/power_law_ops.hpp.

#include "core/field.hpp"
#include "io/schema.hpp"
#include "models/staggered_stokes/power_law_ops.hpp"
#include "models/staggered_stokes/power_law_keys.hpp"

namespace staghorn::stokes {

// stokes.power_law.* (the matrix, the caps, the relaxation) and stokes.inclusion.power_law.*.
struct PowerLawOptions {
  struct Material {
    real n = 1, eps_ref = 1;  // stress exponent (1: Newtonian), reference strain rate
  };
  Material matrix, inclusion;
  ViscosityUpdate update;  // eta_min, eta_max (0: none), relaxation theta
  int interval = 1;        // PT iterations between viscosity updates

  // Any material non-Newtonian: otherwise no field is allocated and no iteration pays anything.
  bool active() const { return matrix.n != 1 || inclusion.n != 1; }

  static void add_to(io::Schema& schema);
  static PowerLawOptions from(const io::json& config);
};

// The flow law's cell fields (one value per cell, so that a phase may set its own), and the
// viscosity at the start of the physical step, which a retry restores.
struct PowerLawFields {
  Field eta0, n, eps_ref, mu_start;
  long long iterations = 0;  // PT iterations run (updates every `interval`)

  PowerLawFields(const Layout& layout, Backend backend);
  FlowLaw law() const { return {eta0.view(), n.view(), eps_ref.view()}; }
};

}  // namespace staghorn::stokes
