// Configuration keys of the variant choice and of the coupled variant.
#include "models/hydromech/background_porosity.hpp"
#include "models/hydromech/config.hpp"
#include "models/hydromech/coupled.hpp"

namespace staghorn::hydromech {

void CoupledHydroMech::add_options(io::Schema& s) {
  using io::Type;
  s.add("hydromech.variant", Type::string, "reduced",
        "reduced: porosity and effective pressure only (total pressure lithostatic); coupled: "
        "solid Stokes flow (velocities, total pressure, stresses) coupled to Darcy flow of the "
        "fluid (fluid pressure), docs/models/hydromech.md; the coupled variant needs "
        "solver.tol_mode = absolute")
      .one_of({"reduced", "coupled"});
  s.add("hydromech.coupled.shear_viscosity", Type::number, 1.0,
        "Shear viscosity eta_s of the solid matrix (coupled variant)")
      .above(0);
  s.add("hydromech.coupled.shear_modulus", Type::number, 0.0,
        "Shear modulus G of a Maxwell visco-elastic matrix (coupled variant); 0: viscous")
      .at_least(0);
  s.add("hydromech.coupled.reference_porosity", Type::number, nullptr,
        "Porosity of the lithostatic reference state that pressures are measured from: the "
        "buoyancy is (phi - phi_ref) B (null: phi0; on a periodic up axis it must be null and "
        "the mean porosity is used)")
      .above(0);
  // Measured on a 3-D blob (16 x 16 x 32, eta_s = eta0): 1800 iterations per step against 2800
  // with the Stokes model's optimum (Re = 9 sqrt(3) pi / 4, r = 1); 1-D: Re = 20, r = 1 best.
  s.add("hydromech.coupled.Re", Type::number, 24.0,
        "Numerical Reynolds number of the solid's PT iterations (as stokes.Re)")
      .above(0);
  s.add("hydromech.coupled.r", Type::number, 2.0,
        "Numerical bulk-to-shear modulus ratio of the solid's PT iterations (as stokes.r)")
      .above(0);
  s.add("hydromech.coupled.kernel", Type::string, "tiled",
        "PT iteration kernel of the coupled variant: tiled (3-D on a GPU: each new value computed "
        "once per cell from shared memory, docs/models/hydromech.md; elsewhere the generic one "
        "runs) or generic (the reference: each cell recomputes its neighbours' new pressures and "
        "stresses); both give the same result to round-off")
      .one_of({"tiled", "generic"});
  for (const char* side : {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"})
    s.add(std::string("hydromech.coupled.boundary.") + side, Type::string, "free_slip",
          std::string("Solid wall on the ") + side +
              " side of a bounded axis (coupled variant): free_slip (no normal velocity, no "
              "shear stress) or no_slip (also no tangential velocity)")
        .one_of({"free_slip", "no_slip"});
}

CoupledHydroMech::Options CoupledHydroMech::Options::from(const io::json& c) {
  using io::at_path;
  Options o;
  o.mat = material_from(c);
  o.fluid_sides = pe_bcs_from(c);
  o.shear_viscosity = at_path(c, "hydromech.coupled.shear_viscosity").get<real>();
  o.shear_modulus = at_path(c, "hydromech.coupled.shear_modulus").get<real>();
  o.Re = at_path(c, "hydromech.coupled.Re").get<real>();
  o.r = at_path(c, "hydromech.coupled.r").get<real>();
  if (const io::json& v = at_path(c, "hydromech.coupled.reference_porosity"); !v.is_null())
    o.reference_porosity = v.get<real>();
  const char* sides[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  for (int s = 0; s < 6; ++s)
    o.walls[s] = stokes::parse_wall(
        at_path(c, std::string("hydromech.coupled.boundary.") + sides[s]).get<std::string>());
  o.tiled = at_path(c, "hydromech.coupled.kernel").get<std::string>() == "tiled";
  o.solver = pt::Options::from(c);
  o.initial = at_path(c, "hydromech.initial");
  o.materials = materials::Options::from(c, "hydromech.materials", material_properties());
  return o;
}

}  // namespace staghorn::hydromech
