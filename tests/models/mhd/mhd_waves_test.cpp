// Linear waves of the MHD model against their analytical dispersion relations: a sound wave
// (isothermal and adiabatic, shear and bulk viscosity) and an Alfven wave (viscosity and magnetic
// diffusivity) oscillate at the predicted frequency and damp at the predicted rate, within 1%.
// Each starts as an exact eigenmode exp(i k x + s t) of the linearised equations, so the complex
// growth rate s is measured directly from the projection of u on the mode at two times.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdio>

#include "mhd_fixture.hpp"

namespace staghorn::test {
namespace {

using cplx = std::complex<double>;
using namespace std::complex_literals;
constexpr double kTwoPi = 2 * M_PI;

io::json wave_config(int n, double t_end, int steps) {
  return {{"grid", {{"n", {n, 1, 1}}, {"periodic", {true, true, true}}}},
          {"time", {{"dt", t_end / steps}, {"steps", steps}}},
          {"mhd", {{"initial", {{"type", "noise"}, {"amplitude", 0.0}}}}}};
}

// The measured s = log(P(t) / P(0)) / t from the mode of variable v (|Im s| t < pi).
cplx measured_rate(MhdRun& r, int v, double k) {
  const cplx p0 = r.mode(v, k);
  r.run();
  const double t = r.settings.dt * r.settings.steps;
  return std::log(r.mode(v, k) / p0) / t;
}

void expect_rate(cplx measured, cplx expected) {
  std::printf("frequency %.6f (expected %.6f), damping rate %.6f (expected %.6f)\n",
              measured.imag(), expected.imag(), -measured.real(), -expected.real());
  EXPECT_NEAR(measured.imag(), expected.imag(), 0.01 * std::fabs(expected.imag())) << "frequency";
  EXPECT_NEAR(measured.real(), expected.real(), 0.01 * std::fabs(expected.real())) << "damping";
}

// Sound: d lnrho/dt = -du/dx, du/dt = -cs^2 d lnrho/dx + D d2u/dx2 with D = 4/3 nu + zeta:
// s = -D k^2 / 2 + i sqrt(k^2 cs^2 - D^2 k^4 / 4).
void sound_wave(bool isothermal, double cs, double nu, double zeta) {
  io::json c = wave_config(64, 0.15, 6);
  c["mhd"]["isothermal"] = isothermal;
  c["mhd"]["cs0"] = cs, c["mhd"]["nu"] = nu, c["mhd"]["zeta"] = zeta, c["mhd"]["eta"] = 0.0;
  MhdRun r(c);
  const double k = kTwoPi, D = 4.0 / 3 * nu + zeta;
  const cplx s = -D * k * k / 2 + 1i * std::sqrt(k * k * cs * cs - D * D * k * k * k * k / 4);
  const cplx U = 1e-6, R = -1i * k * U / s;
  r.set(mhd::kUx, [&](double x, double, double) { return (U * std::exp(1i * k * x)).real(); });
  r.set(mhd::kLnrho, [&](double x, double, double) { return (R * std::exp(1i * k * x)).real(); });
  r.model->refresh();
  expect_rate(measured_rate(r, mhd::kUx, k), s);
}

TEST(MhdWaves, IsothermalSoundWave) { sound_wave(true, 1.0, 0.02, 0.0); }
TEST(MhdWaves, AdiabaticSoundWaveWithBulkViscosity) { sound_wave(false, 2.0, 0.01, 0.02); }

// Alfven, B_ext = B0 along x: du_y/dt = B0/(mu0 rho) db_y/dx + nu d2u_y/dx2,
// db_y/dt = B0 du_y/dx + eta d2b_y/dx2:
// s = -(nu + eta) k^2 / 2 + i sqrt(k^2 vA^2 - (nu - eta)^2 k^4 / 4).
TEST(MhdWaves, AlfvenWave) {
  const double B0 = 0.5, nu = 0.01, eta = 0.03, mu0 = 1.0, rho = 1.0;
  io::json c = wave_config(64, 0.4, 8);
  c["mhd"]["B_ext"] = {B0, 0.0, 0.0};
  c["mhd"]["nu"] = nu, c["mhd"]["eta"] = eta;
  MhdRun r(c);
  const double k = kTwoPi, vA = B0 / std::sqrt(mu0 * rho), dn = (nu - eta) * k * k / 2;
  const cplx s = -(nu + eta) * k * k / 2 + 1i * std::sqrt(k * k * vA * vA - dn * dn);
  const cplx U = 1e-6, b = (s + nu * k * k) * U * mu0 * rho / (1i * k * B0);
  const cplx A = 1i * b / k;  // b_y = -dA_z/dx
  r.set(mhd::kUy, [&](double x, double, double) { return (U * std::exp(1i * k * x)).real(); });
  r.set(mhd::kAz, [&](double x, double, double) { return (A * std::exp(1i * k * x)).real(); });
  r.model->refresh();
  expect_rate(measured_rate(r, mhd::kUy, k), s);
}

}  // namespace
}  // namespace staghorn::test
