#pragma once
// Config readers shared by the reduced and the coupled variants.
#include <optional>
#include <string>

#include "io/schema.hpp"
#include "models/hydromech/boundary.hpp"
#include "models/hydromech/physics.hpp"

namespace staghorn::hydromech {

// The material laws of `hydromech.phi0`, `.permeability.*`, `.bulk_viscosity.*`, `.buoyancy`.
Material material_from(const io::json& config);

// B = (rho_s - rho_f) g: `hydromech.buoyancy`, or from `hydromech.density.*` and
// `hydromech.gravity` (all three), else 1. ConfigError naming the key for a mix or a fluid that
// is not lighter than the solid.
real buoyancy_from(const io::json& config);

// The number at `path`, none where the key is null (its default: the model chooses).
std::optional<real> optional_number(const io::json& config, const std::string& path);

// The fluid conditions of `hydromech.boundary.*` (on Pe in the reduced variant, on the fluid
// over-pressure in the coupled one).
PeBcs pe_bcs_from(const io::json& config);

}  // namespace staghorn::hydromech
