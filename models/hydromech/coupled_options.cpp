// Configuration keys of the variant choice and of the coupled variant.
#include "models/hydromech/background_porosity.hpp"
#include "models/hydromech/config.hpp"
#include "models/hydromech/coupled.hpp"
#include "models/staggered_stokes/power_law_keys.hpp"

namespace staghorn::hydromech {

void CoupledHydroMech::add_options(io::Schema& s) {
  using io::Type;
  s.add("hydromech.variant", Type::string, "reduced",
        "reduced: porosity and effective pressure only (total pressure lithostatic); coupled: "
        "solid Stokes flow (velocities, total pressure, stresses) coupled to Darcy flow of the "
        "fluid (fluid pressure), docs/models/hydromech-coupled.md; the coupled variant needs "
        "solver.tol_mode = absolute")
      .one_of({"reduced", "coupled"});
  s.add("hydromech.coupled.physics", Type::string, "two_phase",
        "two_phase: the full system (factors 1 - phi, porosity carried by the solid, Darcy flux "
        "driven by (1 - phi_ref) B); small_porosity: its limit phi << 1 (factors 1, no advection, "
        "the reference state's fluid drive B), docs/models/hydromech-coupled.md")
      .one_of({"two_phase", "small_porosity"});
  s.add("hydromech.coupled.shear_viscosity", Type::number, 1.0,
        "Shear viscosity mu0 of the solid matrix at phi = phi0 (and eps_II = eps_ref under a "
        "power law): mu = mu0 exp(-alpha (phi - phi0)) (eps_II / eps_ref)^(1/n - 1)")
      .above(0);
  s.add("hydromech.coupled.porosity_weakening", Type::number, 0.0,
        "alpha of the shear viscosity's porosity weakening exp(-alpha (phi - phi0)); 0: none")
      .at_least(0);
  // Relaxation 0.05: at Stokes' 0.5 the 2-D pipe (n = 3, alpha = 20) stalls in its first step,
  // the viscosity feeding back through the compaction scale and the fluid's damping.
  stokes::PowerLawKeys::add_to(s, "hydromech.coupled.power_law",
                               "mu0 exp(-alpha (phi - phi0)), the shear viscosity's porosity law",
                               0.05);
  s.add("hydromech.coupled.bulk_power_law", Type::boolean, false,
        "The bulk viscosity eta_phi takes the shear viscosity's strain-rate factor "
        "(eps_II / eps_ref)^(1/n - 1) within its caps (the strain-rate dependence of eta_phi)");
  s.add("hydromech.coupled.shear_modulus", Type::number, 0.0,
        "Shear modulus G of a Maxwell visco-elastic matrix (coupled variant); 0: viscous")
      .at_least(0);
  s.add("hydromech.coupled.reference_porosity", Type::number, nullptr,
        "Porosity of the lithostatic reference state that pressures are measured from: the "
        "buoyancy is (phi - phi_ref) B (null: phi0; on a periodic up axis it must be null and "
        "the mean porosity is used)")
      .above(0)
      .at_most(1);
  s.add("hydromech.coupled.Re", Type::number, nullptr,
        "Numerical Reynolds number of the solid's PT iterations (as stokes.Re); null: tuned "
        "during each step from the residual history")
      .above(0);
  s.add("hydromech.coupled.r", Type::number, nullptr,
        "Numerical bulk-to-shear modulus ratio of the solid's PT iterations (as stokes.r); null: "
        "4, the best of a sweep (docs/models/hydromech-coupled.md)")
      .above(0);
  s.add("hydromech.coupled.predictor", Type::string, "linear",
        "First iterate of each step: linear (v, p and pf extrapolated from their rates over the "
        "last step, written as dVdt_*, dPdt and dPfdt) or none (the last step's solution)")
      .one_of({"linear", "none"});
  s.add("hydromech.coupled.level_correction", Type::boolean, false,
        "Every 100 iterations, shift p and pf by the one constant that balances the domain's "
        "volume through the dirichlet fluid sides: fewer iterations on coarse 2-D grids, more in "
        "3-D (docs/models/hydromech-coupled.md); no effect without a dirichlet side");
  ChimneyOptions::add_to(s);
  s.add("hydromech.coupled.kernel", Type::string, "tiled",
        "PT iteration kernel of the coupled variant: tiled (3-D on a GPU: each new value computed "
        "once per cell from shared memory, docs/models/hydromech-coupled.md; elsewhere the generic one "
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

namespace {

// The shear viscosity's law (shear_modulus too: the Maxwell combination).
two_phase::ShearLaw shear_law_from(const io::json& c, const Material& mat) {
  using io::at_path;
  const stokes::PowerLawKeys p = stokes::PowerLawKeys::from(c, "hydromech.coupled.power_law");
  two_phase::ShearLaw law;
  law.mu0 = at_path(c, "hydromech.coupled.shear_viscosity").get<real>();
  law.alpha = at_path(c, "hydromech.coupled.porosity_weakening").get<real>();
  law.phi0 = mat.phi0;
  law.n = p.n;
  law.eps_ref = p.eps_ref;
  law.update = p.update;
  law.G = at_path(c, "hydromech.coupled.shear_modulus").get<real>();
  law.bulk_follows = at_path(c, "hydromech.coupled.bulk_power_law").get<bool>();
  if (law.bulk_follows && law.n == 1)
    throw io::ConfigError(
        "hydromech.coupled.bulk_power_law: needs a power law (hydromech.coupled.power_law.n > 1)");
  return law;
}

}  // namespace

CoupledHydroMech::Options CoupledHydroMech::Options::from(const io::json& c) {
  using io::at_path;
  Options o;
  o.mat = material_from(c);
  o.fluid_sides = pe_bcs_from(c);
  o.two_phase = at_path(c, "hydromech.coupled.physics").get<std::string>() == "two_phase";
  if (o.two_phase && !(o.mat.phi0 < 1))
    throw io::ConfigError("hydromech.phi0: " + at_path(c, "hydromech.phi0").dump() +
                          " must be below 1 in the two-phase system (a porosity; "
                          "hydromech.coupled.physics = two_phase)");
  o.shear = shear_law_from(c, o.mat);
  o.shear_interval =
      at_path(c, "hydromech.coupled.power_law.interval").get<int>();
  o.Re = optional_number(c, "hydromech.coupled.Re");
  o.r = optional_number(c, "hydromech.coupled.r");
  o.reference_porosity = optional_number(c, "hydromech.coupled.reference_porosity");
  const char* sides[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  for (int s = 0; s < 6; ++s)
    o.walls[s] = stokes::parse_wall(
        at_path(c, std::string("hydromech.coupled.boundary.") + sides[s]).get<std::string>());
  o.tiled = at_path(c, "hydromech.coupled.kernel").get<std::string>() == "tiled";
  o.predictor = at_path(c, "hydromech.coupled.predictor").get<std::string>() == "linear";
  o.level_correction = at_path(c, "hydromech.coupled.level_correction").get<bool>();
  o.solver = pt::Options::from(c);
  o.initial = at_path(c, "hydromech.initial");
  o.materials = materials::Options::from(c, "hydromech.materials", material_properties());
  o.chimney = ChimneyOptions::from(c);
  return o;
}

}  // namespace staghorn::hydromech
