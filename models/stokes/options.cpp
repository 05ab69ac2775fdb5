// The Stokes model's configuration keys and its entry in the model registry.
#include <cmath>

#include "models/stokes/stokes.hpp"

namespace staghorn::stokes {
namespace {
// The optimum of the dispersion analysis of Räss et al. (2022) for uniform viscosity.
const real kUniformOptimumRe = real(9 * std::sqrt(3.0) * M_PI / 4);
// stokes.r = null: without stiff inclusions (Stokes::refresh() raises it to 1 where there are).
const real kWeakInclusionsR = real(0.75);
}  // namespace

void Stokes::add_options(io::Schema& s) {
  using io::Type;
  pt::Options::add_to(s);
  PowerLawOptions::add_to(s);
  s.add("stokes.viscosity", Type::number, 1.0, "Shear viscosity mu of the matrix").above(0);
  s.add("stokes.density", Type::number, 0.0, "Density rho of the matrix");
  s.add("stokes.gravity", Type::number3, io::json::array({0.0, 0.0, 0.0}),
        "Gravity vector g of the buoyancy force rho g (e.g. [0, -1, 0] in 2-D, [0, 0, -1] in 3-D)");
  s.add("stokes.inclusion.radius", Type::number, 0.0,
        "Radius of a disc (2-D) or ball (3-D) of other material (0: none)")
      .at_least(0);
  s.add("stokes.inclusion.center", Type::number3, nullptr,
        "Centre of the inclusion (null: the centre of the domain)");
  s.add("stokes.inclusion.viscosity", Type::number, 1.0, "Shear viscosity of the inclusion")
      .above(0);
  s.add("stokes.inclusion.density", Type::number, 0.0, "Density of the inclusion");
  s.add("stokes.inclusion.rigid_acceleration", Type::number, nullptr,
        "Deprecated (the gain of the former one-inclusion acceleration): 0 turns the stiff "
        "bodies' rigid-mode correction off, as stokes.rigid_bodies.mode = \"off\"; null leaves "
        "it to stokes.rigid_bodies; other values are refused")
      .at_least(0)
      .at_most(0);
  s.add("stokes.rigid_bodies.mode", Type::string, "auto",
        "Rigid-mode correction of stiff bodies (docs/models/stiff-bodies.md): "
        "auto (each connected region stiffer than the geometric mean of the matrix's (the lowest "
        "decile of the cell viscosities) and the stiffest cell's viscosity, grown over the cells "
        "around whose pseudo-steps come from above threshold x the matrix's, is a body; after "
        "each PT iteration its net force and torque move it rigidly with the pseudo-inertia of "
        "its rim) or off")
      .one_of({"auto", "off"});
  s.add("stokes.rigid_bodies.threshold", Type::number, 2.0,
        "A cell belongs to a body when the largest viscosity of its 3^d neighbourhood exceeds "
        "threshold x the matrix's viscosity (the lowest decile of the cell viscosities) and it "
        "lies nearer a body's core than any other's")
      .above(1);
  s.add("stokes.rigid_bodies.mobility", Type::number, 1.0,
        "Factor on the rigid modes' pseudo-step (1: the pseudo-inertia of the body's rim, the "
        "faces between it and the rest); retries divide it by 4 each, and turn it off below "
        "0.05")
      .above(0);
  s.add("stokes.inclusion.subsamples", Type::integer, 1,
        "Sample points per cell and axis that measure the inclusion's volume fraction of cells cut "
        "by its surface (mixed harmonically for mu, arithmetically for rho); 1: the cell centre "
        "decides; also the default of stokes.materials.subsamples")
      .at_least(1)
      .at_most(64);
  materials::Options::add_to(s, "stokes.materials",
                             {materials::Property::viscosity, materials::Property::density});
  s.add("stokes.pure_shear", Type::number, 0.0,
        "Background pure-shear strain rate e: initial v = e (x - xc, -(y - yc), 0), and the "
        "normal velocity of the x and y walls");
  for (const char* side : {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"})
    s.add(std::string("stokes.boundary.") + side, Type::string, "free_slip",
          std::string("Wall on the ") + side +
              " side of a bounded axis: free_slip (normal velocity imposed: 0 or pure shear; no "
              "shear stress), no_slip (also zero tangential velocity) or prescribed (velocities "
              "of the initial state stay on the wall and its ghosts)")
        .one_of({"free_slip", "no_slip", "prescribed"});
  s.add("stokes.smoothing", Type::integer, 0,
        "Explicit diffusion passes over the initial viscosity field (Räss et al. 2022 use 10): "
        "spreads a jump over ~sqrt(passes) cells, which large contrasts (10^4) need to converge "
        "in few PT iterations; 0 keeps the jump sharp")
      .at_least(0)
      .at_most(1000);
  s.add("stokes.smoothing_mean", Type::string, "arithmetic",
        "What the smoothing passes average: arithmetic (mu itself, as Räss et al. 2022) or "
        "geometric (log mu: a 10^6 jump leaves no stiff tail, so close stiff inclusions stay "
        "apart as bodies; docs/models/stokes.md, Viscosity smoothing)")
      .one_of({"arithmetic", "geometric"});
  s.add("stokes.viscosity_average", Type::string, "arithmetic",
        "Viscosity on cell edges from the four cells around: arithmetic or harmonic mean")
      .one_of({"arithmetic", "harmonic"});
  s.add("stokes.kernel", Type::string, "tiled",
        "Iteration kernel: generic (one thread per cell, recomputing the new stresses of its "
        "neighbours from memory; the reference, any backend) or tiled (3-D; on CUDA: xy tiles "
        "marching along z, the new stresses shared through shared memory, each array read about "
        "once, the same results to rounding; on the CPU: tiles of rows marching along z, each new "
        "value computed once and kept in row buffers, the same bits; in 2-D the generic one runs)")
      .one_of({"generic", "tiled"});
  s.add("stokes.pt_viscosity_floor", Type::string, "auto",
        "Least viscosity the pseudo-steps are taken from (docs/models/stokes.md, \"Pseudo-step "
        "viscosity\"): none (every point uses the largest viscosity of its neighbourhood), "
        "median (the median cell viscosity, the matrix: weak inclusions then follow their matrix "
        "instead of relaxing their pressure at their own slow rate, which the rms_range measure of "
        "many weak inclusions needs, but their inner momentum residual converges slower, which the "
        "max measure sees) or auto (median with residual_norm = rms_range, none with max)")
      .one_of({"auto", "none", "median"});
  s.add("stokes.pt_viscosity_floor_factor", Type::number, 0.5,
        "The median floor is this fraction of the median viscosity: inside weak inclusions the "
        "pseudo-steps then come from a viscosity between the matrix's (their pressure follows it) "
        "and their own (their viscous modes relax faster); docs/models/stokes.md, \"Pseudo-step "
        "viscosity\"")
      .above(0)
      .at_most(1);
  s.add("stokes.residual_norm", Type::string, "max",
        "Residual norms: max (max|R| L / S with the problem's stress scale S, continuity max|div "
        "v| mu_0 / S) or rms_range (root mean square, momentum times L / (P_max - P_min), "
        "continuity times L / (the largest range of a velocity component): the measure of Räss "
        "et al. 2022, for comparisons with it)")
      .one_of({"max", "rms_range"});
  s.add("stokes.continuity_tol", Type::number, nullptr,
        "Tolerance of the continuity residual (null: solver.tol, as every other equation)")
      .above(0);
  s.add("stokes.Re", Type::number, nullptr,
        "Numerical Reynolds number (the damping) of the PT iterations: null (automatic) starts "
        "from the uniform-viscosity optimum 9 sqrt(3) pi / 4 (Räss et al. 2022) and searches, "
        "from the residual history, for the Re whose slowest mode decays most per oscillation "
        "(docs/models/stokes.md, \"Damping that tunes itself\"); a number: that Re throughout")
      .above(0);
  s.add("stokes.r", Type::number, nullptr,
        "Numerical bulk-to-shear modulus ratio r = K/G of the PT iterations: null (automatic) "
        "takes 0.75 without stiff inclusions (Räss et al. 2022's weak-inclusion benchmark within "
        "their best at 2047^2) and 1 where the stiffest viscosity exceeds rigid_bodies.threshold "
        "times the median (their rigid modes need its damping); docs/models/stokes.md")
      .above(0);
}

Stokes::Options Stokes::Options::from(const io::json& c) {
  using io::at_path;
  Options o;
  auto number = [&](const char* key) { return at_path(c, key).get<real>(); };
  auto vector = [&](const io::json& v) {
    return std::array<real, 3>{v[0].get<real>(), v[1].get<real>(), v[2].get<real>()};
  };
  o.viscosity = number("stokes.viscosity");
  o.density = number("stokes.density");
  Inclusion& i = o.inclusion;
  i.radius = number("stokes.inclusion.radius");
  i.viscosity = number("stokes.inclusion.viscosity");
  i.density = number("stokes.inclusion.density");
  if (const io::json& v = at_path(c, "stokes.inclusion.center"); !v.is_null()) i.center = vector(v);
  if (const io::json& v = at_path(c, "stokes.inclusion.rigid_acceleration"); !v.is_null())
    i.rigid_acceleration = v.get<real>();
  i.subsamples = at_path(c, "stokes.inclusion.subsamples").get<int>();
  o.rigid_bodies = {at_path(c, "stokes.rigid_bodies.mode").get<std::string>() == "auto" &&
                        i.rigid_acceleration.value_or(1) != 0,
                    number("stokes.rigid_bodies.threshold"),
                    number("stokes.rigid_bodies.mobility")};
  o.materials = materials::Options::from(
      c, "stokes.materials", {materials::Property::viscosity, materials::Property::density});
  o.pure_shear = number("stokes.pure_shear");
  const char* sides[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  for (int s = 0; s < 6; ++s)
    o.walls[s] =
        parse_wall(at_path(c, std::string("stokes.boundary.") + sides[s]).get<std::string>());
  o.smoothing = at_path(c, "stokes.smoothing").get<int>();
  o.geometric_smoothing = at_path(c, "stokes.smoothing_mean").get<std::string>() == "geometric";
  o.tiled = at_path(c, "stokes.kernel").get<std::string>() == "tiled";
  o.rms_norm = at_path(c, "stokes.residual_norm").get<std::string>() == "rms_range";
  // The floor slows a weak inclusion's inner momentum residual, which only the max measure sees;
  // the rms measure of many weak inclusions needs it (docs/models/stokes.md).
  const std::string floor = at_path(c, "stokes.pt_viscosity_floor").get<std::string>();
  o.median_floor = floor == "median" || (floor == "auto" && o.rms_norm);
  o.floor_factor = at_path(c, "stokes.pt_viscosity_floor_factor").get<real>();
  if (const io::json& v = at_path(c, "stokes.continuity_tol"); !v.is_null())
    o.continuity_tol = v.get<real>();
  o.solver = pt::Options::from(c);
  o.power_law = PowerLawOptions::from(c);
  const io::json& re = at_path(c, "stokes.Re");
  o.adaptive_damping = re.is_null();
  const io::json& r = at_path(c, "stokes.r");
  o.automatic_r = r.is_null();
  o.pt = {o.adaptive_damping ? kUniformOptimumRe : re.get<real>(),
          o.automatic_r ? kWeakInclusionsR : r.get<real>(),
          o.solver.cfl,
          vector(at_path(c, "stokes.gravity")),
          at_path(c, "stokes.viscosity_average").get<std::string>() == "harmonic",
          /*deviatoric=*/false};
  return o;
}

ModelInfo Stokes::info() {
  ModelInfo i{"stokes",
              "Incompressible Stokes flow with variable viscosity and buoyancy, accelerated "
              "pseudo-transient iterations",
              &Stokes::add_options,
              [](const ModelContext& ctx) -> std::unique_ptr<Model> {
                return std::make_unique<Stokes>(ctx);
              },
              1};
  i.arrays = 33;  // V, P, tau: current, new, old; mu, mu_max, rho (models/stokes/stokes.hpp)
  i.units = {"m", "s", ""};  // SI: viscosity in Pa s, density in kg m-3, gravity in m s-2
  return i;
}

}  // namespace staghorn::stokes
