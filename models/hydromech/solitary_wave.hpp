#pragma once
// The exact 1-D solitary porosity wave of the scaled compaction equations with k = phi^3 and a
// constant bulk viscosity (Barcilon & Richter 1986): in units of phi0, the compaction length
// delta = sqrt(k0 eta0) and the background Darcy velocity w0 = k0 buoyancy / phi0,
//   df/dt = -P,  d/dz (f^3 (dP/dz + 1)) = P.
// A wave f(z - c t) of amplitude A = f_max travels at c = 2A + 1, with
//   f'^2 = 2 (f - 1)^2 (A - f) / (c f^2),
//   |z - z_peak| = sqrt(c/2) (2 s + ln((a + s)/(a - s)) / a),  s = sqrt(A - f), a = sqrt(A - 1),
// and P = c f' (docs/models/hydromech.md derives these).

#include <cmath>

namespace staghorn::hydromech {

struct SolitaryWave {
  double A;  // f_max, > 1

  double speed() const { return 2 * A + 1; }

  // Distance from the peak where the porosity is A - s^2.
  double distance(double s) const {
    const double a = std::sqrt(A - 1);
    return std::sqrt(speed() / 2) * (2 * s + std::log((a + s) / (a - s)) / a);
  }

  // f and the scaled effective pressure P = c f' at signed distance zeta from the peak.
  void at(double zeta, double& f, double& P) const {
    const double a = std::sqrt(A - 1), d = std::fabs(zeta);
    double lo = 0, hi = a;  // distance(s) grows from 0 (s = 0) to infinity (s -> a)
    for (int it = 0; it < 200 && hi - lo > 1e-16 * a; ++it) {
      const double mid = 0.5 * (lo + hi);
      (distance(mid) < d ? lo : hi) = mid;
    }
    const double s = 0.5 * (lo + hi);
    f = A - s * s;
    const double slope = std::sqrt(2 * (f - 1) * (f - 1) * (A - f) / (speed() * f * f));
    P = speed() * (zeta > 0 ? -slope : slope);
  }
};

}  // namespace staghorn::hydromech
