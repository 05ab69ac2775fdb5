// The hydro-mechanical model's configuration keys and its entry in the model registry.
#include "models/hydromech/background_porosity.hpp"
#include "models/hydromech/config.hpp"
#include "models/hydromech/coupled.hpp"
#include "models/hydromech/hydromech.hpp"

namespace staghorn::hydromech {
namespace {

HydroMech::Kernel kernel_from(const io::json& c) {
  const std::string k = io::at_path(c, "hydromech.kernel").get<std::string>();
  if (k == "generic") return HydroMech::Kernel::generic;
  if (k == "stored") return HydroMech::Kernel::stored;
  if (k == "pairs") return HydroMech::Kernel::pairs;
  if (k == "rows") return HydroMech::Kernel::rows;
  if (k == "auto") return HydroMech::Kernel::automatic;
  throw Error("hydromech.kernel: unknown kernel \"" + k +
              "\" (auto, generic, stored, pairs or rows)");
}

}  // namespace
namespace {

void add_material(io::Schema& s) {
  using io::Type;
  s.add("hydromech.phi0", Type::number, 1.0,
        "Reference (background) porosity phi0 of the permeability and bulk viscosity laws")
      .above(0);
  s.add("hydromech.permeability.k0", Type::number, 1.0,
        "Permeability over fluid viscosity at phi = phi0: k = k0 (phi/phi0)^n")
      .above(0);
  s.add("hydromech.permeability.exponent", Type::number, 3.0,
        "Exponent n of k = k0 (phi/phi0)^n (Carman-Kozeny: 3)")
      .at_least(0)
      .at_most(16);
  s.add("hydromech.bulk_viscosity.eta0", Type::number, 1.0,
        "Bulk (compaction) viscosity at phi = phi0: eta_phi = eta0 (phi0/phi)^m")
      .above(0);
  s.add("hydromech.bulk_viscosity.exponent", Type::integer, 1,
        "Exponent m of eta_phi = eta0 (phi0/phi)^m: 1 (eta ~ 1/phi) or 0 (constant); the "
        "implicit porosity update is solved in closed form for these two")
      .at_least(0)
      .at_most(1);
  s.add("hydromech.bulk_viscosity.decompaction_weakening", Type::number, 1.0,
        "R: the bulk viscosity is divided by R where the effective pressure is negative "
        "(decompaction); 1 switches it off")
      .at_least(1);
  s.add("hydromech.bulk_viscosity.smoothing", Type::number, 0.0,
        "Effective-pressure width of a tanh switch between compaction and decompaction "
        "viscosities (0: sharp switch at Pe = 0)")
      .at_least(0);
  s.add("hydromech.buoyancy", Type::number, nullptr,
        "B = (rho_solid - rho_fluid) g: drives the fluid up the last active axis (x in 1-D, y in "
        "2-D, z in 3-D); null: from hydromech.density and hydromech.gravity where they are set, "
        "else 1 (scaled units)")
      .at_least(0);
  s.add("hydromech.density.solid", Type::number, nullptr,
        "Density rho_s of the solid grains (with hydromech.density.fluid and hydromech.gravity "
        "instead of hydromech.buoyancy; pressures are measured from the lithostat, so only "
        "(rho_s - rho_f) g enters)")
      .above(0);
  s.add("hydromech.density.fluid", Type::number, nullptr,
        "Density rho_f of the pore fluid (below rho_s)")
      .above(0);
  s.add("hydromech.gravity", Type::number, nullptr,
        "Gravitational acceleration g, acting down the last active axis")
      .above(0);
}

void add_initial(io::Schema& s) {
  using io::Type;
  s.add("hydromech.initial.type", Type::string, "gaussian",
        "Initial porosity: gaussian (phi0 (1 + amplitude exp(-r^2/(2 sigma^2))), r scaled per "
        "axis by `aspect`), solitary_wave (the exact 1-D solitary wave of amplitude phi_max/phi0 = "
        "amplitude along the up axis; needs n = 3, m = 0, R = 1) or uniform (phi0)")
      .one_of({"gaussian", "solitary_wave", "uniform"});
  s.add("hydromech.initial.amplitude", Type::number, 2.0,
        "gaussian: relative excess porosity at the centre; solitary_wave: phi_max / phi0 (> 1)");
  s.add("hydromech.initial.sigma", Type::number, 0.1, "Width of the Gaussian (standard deviation)")
      .above(0);
  s.add("hydromech.initial.aspect", Type::number3, io::json::array({1.0, 1.0, 1.0}),
        "Gaussian: sigma is multiplied by these per axis (an elongated blob or layer)");
  s.add("hydromech.initial.center", Type::number3, nullptr,
        "Centre of the blob or of the wave (null: the domain's centre)");
}

void add_boundaries(io::Schema& s) {
  using io::Type;
  const char* sides[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  for (const char* side : sides) {
    const std::string p = std::string("hydromech.boundary.") + side;
    s.add(p + ".type", Type::string, "dirichlet",
          std::string("Effective-pressure condition on the ") + side +
              " side of a bounded axis: dirichlet (Pe = value: open, the background Darcy flux "
              "crosses it) or closed (no Darcy flux)")
        .one_of({"closed", "dirichlet"});
    s.add(p + ".value", Type::number, 0.0,
          std::string("Dirichlet value of Pe on the ") + side + " side");
  }
}

}  // namespace

void HydroMech::add_options(io::Schema& s) {
  pt::Options::add_to(s);
  s.add("hydromech.kernel", io::Type::string, "auto",
        "PT iteration kernel: auto (rows on the CPU, pairs on a GPU), stored (phi(Pe) kept per "
        "cell and iteration in its own array: one exp per cell, 56 bytes per cell), pairs "
        "(stored, two cells per thread with 16-byte accesses: the GPU's fast path; stored where a "
        "region's x bounds are odd), rows (the CPU's vectorised row kernel: phi(Pe) once per cell "
        "and each face flux once, 40 bytes per cell; pairs on a GPU) or generic (each cell "
        "recomputes phi over its 7-point stencil: the reference, 40 bytes per cell); all give the "
        "same result to round-off")
      .one_of({"auto", "generic", "stored", "pairs", "rows"});
  add_material(s);
  add_initial(s);
  materials::Options::add_to(s, "hydromech.materials", material_properties());
  add_boundaries(s);
}

HydroMech::Options HydroMech::Options::from(const io::json& c) {
  Options o;
  o.kernel = kernel_from(c);
  o.material = material_from(c);
  o.sides = pe_bcs_from(c);
  o.solver = pt::Options::from(c);
  o.initial = io::at_path(c, "hydromech.initial");
  o.materials = materials::Options::from(c, "hydromech.materials", material_properties());
  return o;
}

ModelInfo HydroMech::info() {
  ModelInfo i{"hydromech",
              "Porosity waves by two-phase viscous compaction: reduced (porosity, effective "
              "pressure) or coupled (solid Stokes + Darcy) variant, k ~ phi^n, decompaction "
              "weakening; implicit steps by accelerated pseudo-transient iterations",
              [](io::Schema& s) {
                HydroMech::add_options(s);
                CoupledHydroMech::add_options(s);
              },
              [](const ModelContext& ctx) -> std::unique_ptr<Model> {
                if (io::at_path(ctx.config, "hydromech.variant") == "coupled")
                  return std::make_unique<CoupledHydroMech>(ctx);
                return std::make_unique<HydroMech>(ctx);
              }};
  i.arrays = 49;  // the coupled variant: 44 fields and 5 sources (models/hydromech/coupled.hpp)
  i.units.scaling =
      "lengths in compaction lengths, time in compaction times, porosity in phi0, pressures in "
      "B delta (docs/models/hydromech.md, Scaling)";
  return i;
}

}  // namespace staghorn::hydromech
