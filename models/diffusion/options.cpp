// The diffusion model's configuration keys and its entry in the model registry.
#include <cmath>

#include "models/diffusion/diffusion.hpp"

namespace staghorn::diffusion {
namespace {

Material material_from(const io::json& c) {
  Material m;
  m.D0 = io::at_path(c, "diffusion.D0").get<real>();
  m.n = io::at_path(c, "diffusion.exponent").get<real>();
  m.n_int = (m.n == std::floor(m.n) && m.n < 16) ? static_cast<int>(m.n) : -1;  // see int_power()
  return m;
}

SideBcs bcs_from(const io::json& c) {
  SideBcs bcs;
  const char* sides[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  for (int s = 0; s < 6; ++s) {
    const std::string p = std::string("diffusion.boundary.") + sides[s];
    bcs[s] = {parse_bc_kind(io::at_path(c, p + ".type").get<std::string>()),
              io::at_path(c, p + ".value").get<real>()};
  }
  return bcs;
}

Diffusion::Kernel parse_kernel(const std::string& name) {
  if (name == "generic") return Diffusion::Kernel::generic;
  if (name == "marching") return Diffusion::Kernel::marching;
  if (name == "pairs") return Diffusion::Kernel::pairs;
  if (name == "rows") return Diffusion::Kernel::rows;
  return Diffusion::Kernel::automatic;
}

}  // namespace

void Diffusion::add_options(io::Schema& s) {
  using io::Type;
  pt::Options::add_to(s);
  s.add("diffusion.D0", Type::number, 1.0, "Diffusivity scale D0 in D = D0 * H^n").above(0);
  s.add("diffusion.exponent", Type::number, 0.0, "Exponent n in D = D0 * H^n (0: linear diffusion)")
      .at_least(0)
      .at_most(16);
  s.add("diffusion.initial.type", Type::string, "gaussian",
        "Initial H: gaussian (background + amplitude * exp(-r^2 / (2 sigma^2))), box "
        "(background + amplitude where |x - center| < sigma on every axis) or uniform (background)")
      .one_of({"gaussian", "box", "uniform"});
  s.add("diffusion.initial.amplitude", Type::number, 1.0, "Amplitude of the initial bump");
  s.add("diffusion.initial.background", Type::number, 0.0, "Value of H away from the bump");
  s.add("diffusion.initial.sigma", Type::number, 0.1,
        "Width of the bump (standard deviation, or half-width of the box)")
      .above(0);
  s.add("diffusion.initial.center", Type::number3, nullptr,
        "Centre of the bump (null: the centre of the domain)");
  s.add("diffusion.kernel", Type::string, "auto",
        "Iteration kernel: generic (one thread per cell, the reference), pairs (two cells along x "
        "per thread with 16-byte accesses; even nx), marching (3-D: threads march along z keeping "
        "values in registers), rows (CPU: rows marching along z, each face flux computed once; "
        "on the GPU: auto) or auto (pairs on the GPU, rows on the CPU)")
      .one_of({"auto", "generic", "pairs", "marching", "rows"});
  const char* sides[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
  for (const char* side : sides) {
    const std::string p = std::string("diffusion.boundary.") + side;
    s.add(p + ".type", Type::string, "dirichlet",
          std::string("Condition on the ") + side +
              " side of a bounded axis: dirichlet (H = value) "
              "or neumann (zero flux)")
        .one_of({"dirichlet", "neumann"});
    s.add(p + ".value", Type::number, 0.0,
          std::string("Dirichlet value of H on the ") + side + " side");
  }
}

Diffusion::Options Diffusion::Options::from(const io::json& c) {
  Options o;
  o.material = material_from(c);
  o.sides = bcs_from(c);
  o.kernel = parse_kernel(io::at_path(c, "diffusion.kernel").get<std::string>());
  o.solver = pt::Options::from(c);
  o.initial = io::at_path(c, "diffusion.initial");
  return o;
}

ModelInfo Diffusion::info() {
  ModelInfo i{"diffusion",
              "Nonlinear diffusion dH/dt = div(D0 H^n grad H), implicit steps by accelerated "
              "pseudo-transient iterations",
              &Diffusion::add_options, [](const ModelContext& ctx) -> std::unique_ptr<Model> {
                return std::make_unique<Diffusion>(ctx);
              }};
  i.arrays = 4;  // H, H_new, H_old, dH/dtau
  i.units.scaling =
      "lengths in grid.length units, time in time.dt units, H in its initial condition's units";
  return i;
}

}  // namespace staghorn::diffusion
