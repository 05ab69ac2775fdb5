// The MHD model's configuration keys and its entry in the model registry.
#include "models/mhd/mhd.hpp"

namespace staghorn::mhd {

void Mhd::add_options(io::Schema& s) {
  using io::Type;
  rk3::Options::add_to(s);
  s.add("mhd.order", Type::integer, 6,
        "Order of the central differences: 2, 4, 6 or 8 (halo of order / 2 cells)")
      .at_least(2)
      .at_most(8);
  s.add("mhd.isothermal", Type::boolean, false,
        "Isothermal gas (p = cs0^2 rho, no entropy field) instead of the entropy equation");
  s.add("mhd.kinematic", Type::boolean, false,
        "Kinematic run: only the induction equation is integrated, u, ln rho and s stay as "
        "initialised (kinematic dynamo problems)");
  s.add("mhd.kernel", Type::string, "tiled",
        "Stage kernel: tiled (on CUDA, 3-D, orders 2-6: xy tiles marching along z with the "
        "planes in shared memory, 2-2.8x faster than generic on an H100, elsewhere on CUDA the "
        "generic one runs; on the CPU, any order and dimension: rows cut into pencils whose "
        "derivatives are gathered into small buffers by vectorised loops) or generic (one "
        "thread per cell reading every neighbour from memory; the reference, any backend)")
      .one_of({"generic", "tiled"});
  s.add("mhd.cs0", Type::number, 1.0, "Sound speed at the reference state (lnrho0, s = 0)")
      .above(0);
  s.add("mhd.gamma", Type::number, 5.0 / 3, "Adiabatic index gamma = cp / cv").above(1);
  s.add("mhd.cp", Type::number, 1.0, "Heat capacity at constant pressure").above(0);
  s.add("mhd.lnrho0", Type::number, 0.0, "Reference log density (also the initial background)");
  s.add("mhd.nu", Type::number, 5e-3, "Kinematic viscosity nu").at_least(0);
  s.add("mhd.zeta", Type::number, 0.0, "Bulk viscosity zeta").at_least(0);
  s.add("mhd.eta", Type::number, 5e-3, "Magnetic diffusivity eta").at_least(0);
  s.add("mhd.mu0", Type::number, 1.0, "Vacuum permeability mu0").above(0);
  s.add("mhd.K", Type::number, 0.0, "Radiative conductivity K (uniform) in div(K grad T)")
      .at_least(0);
  s.add("mhd.heating", Type::number, 0.0, "Explicit volumetric heating H");
  s.add("mhd.cooling", Type::number, 0.0, "Explicit volumetric cooling C");
  s.add("mhd.B_ext", Type::number3, io::json::array({0.0, 0.0, 0.0}),
        "Imposed uniform magnetic field added to B = curl A");
  s.add("mhd.initial.type", Type::string, "noise",
        "Initial state on top of lnrho = lnrho0, u = 0, s = 0, A = 0: noise (uniform random "
        "lnrho, u, s of the amplitude, seeded by the global cell index), sound_wave (travelling "
        "along the wavenumber at cs0), alfven_wave (travelling along the wavenumber at v_A when "
        "B_ext is parallel to it), abc_flow (u = amplitude (sin kz + cos ky, sin kx + cos kz, "
        "sin ky + cos kx), |k| of the wavenumber) or gaussian_blobs (a density blob of the "
        "amplitude and a flux tube A_z of field_amplitude, width sigma); all but gaussian_blobs "
        "add a random A of field_amplitude (a dynamo's seed field)")
      .one_of({"noise", "sound_wave", "alfven_wave", "abc_flow", "gaussian_blobs"});
  s.add("mhd.initial.amplitude", Type::number, 1e-3,
        "Amplitude of the flow, wave (relative density or velocity) or blob");
  s.add("mhd.initial.field_amplitude", Type::number, 0.0,
        "Amplitude of the random seed vector potential (or of the blob's flux tube)");
  s.add("mhd.initial.wavenumber", Type::number3, io::json::array({1.0, 0.0, 0.0}),
        "Wave vector in units of 2 pi / L per axis");
  s.add("mhd.initial.sigma", Type::number, 0.1, "Width of the Gaussian blobs").above(0);
  s.add("mhd.initial.center", Type::number3, nullptr,
        "Centre of the Gaussian blobs (null: the centre of the domain)");
  s.add("mhd.initial.seed", Type::integer, 1, "Seed of the random fields")
      .at_least(0)
      .at_most(io::kLargestExactInteger);
  s.add("mhd.forcing.amplitude", Type::number, 0.0,
        "Helical forcing amplitude f0 (0: no forcing); force per mass f0 cs0 sqrt(|k| cs0 / dt) "
        "times a unit helical wave, one random wavevector and phase per RK3 step")
      .at_least(0);
  s.add("mhd.forcing.k", Type::number, 2.0,
        "Forcing shell: integer wave vectors with kf - 1/2 <= |n| < kf + 1/2 (units 2 pi / L)")
      .at_least(1);
  s.add("mhd.forcing.helicity", Type::number, 1.0,
        "Helicity sigma of the forcing (1: fully helical, 0: non-helical)")
      .at_least(-1)
      .at_most(1);
  s.add("mhd.forcing.seed", Type::integer, 1234, "Seed of the forcing's random sequence")
      .at_least(0)
      .at_most(io::kLargestExactInteger);
}

Mhd::Options Mhd::Options::from(const io::json& c) {
  using io::at_path;
  auto num = [&](const std::string& key) { return at_path(c, "mhd." + key).get<real>(); };
  Options o;
  o.order = at_path(c, "mhd.order").get<int>();
  if (o.order % 2 != 0)
    throw io::ConfigError("mhd.order: must be 2, 4, 6 or 8, got " + std::to_string(o.order));
  o.isothermal = at_path(c, "mhd.isothermal").get<bool>();
  o.kinematic = at_path(c, "mhd.kinematic").get<bool>();
  o.tiled = at_path(c, "mhd.kernel").get<std::string>() == "tiled";
  Physics& p = o.physics;
  const real cs0 = num("cs0");
  p.cs2_0 = cs0 * cs0;
  p.gamma = num("gamma");
  p.cp = num("cp");
  p.lnrho0 = num("lnrho0");
  p.nu = num("nu");
  p.zeta = num("zeta");
  p.eta = num("eta");
  p.mu0 = num("mu0");
  p.K = num("K");
  p.heating = num("heating");
  p.cooling = num("cooling");
  const io::json& b = at_path(c, "mhd.B_ext");
  p.B_ext = {b[0].get<real>(), b[1].get<real>(), b[2].get<real>()};
  o.forcing = {num("forcing.amplitude"), num("forcing.k"), num("forcing.helicity"),
               at_path(c, "mhd.forcing.seed").get<long long>()};
  o.rk3 = rk3::Options::from(c);
  o.initial = at_path(c, "mhd.initial");
  return o;
}

ModelInfo Mhd::info() {
  ModelInfo i{"mhd",
              "Compressible non-ideal MHD (Pencil Code / Astaroth equations: ln rho, u, s, A), "
              "central differences of order 2-8, explicit 2N RK3",
              &Mhd::add_options, [](const ModelContext& ctx) -> std::unique_ptr<Model> {
                return std::make_unique<Mhd>(ctx);
              }};
  i.halo = 3;        // the default order 6; the model's layout takes order / 2 itself
  i.arrays = 3 * 8;  // state, next stage, RK3 registers
  i.units.scaling =
      "Pencil Code units: lengths in grid.length units, velocities in those of mhd.cs0, density "
      "in exp(mhd.lnrho0), magnetic field with permeability mhd.mu0";
  return i;
}

}  // namespace staghorn::mhd
