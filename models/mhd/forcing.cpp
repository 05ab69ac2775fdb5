// Pencil-style helical forcing (Brandenburg 2001; Haugen et al. 2004): one random wavevector of
// the shell |k| ~ kf and one random phase per RK3 step, the same on every rank (one seeded
// generator, drawn in the same order everywhere).
#include <cmath>

#include "models/mhd/mhd.hpp"

namespace staghorn::mhd {

void Mhd::draw_forcing(real dt) {
  force_.on = force_f0_ > 0;
  if (!force_.on) return;
  const Grid& g = dec_.grid();
  std::uniform_real_distribution<real> unit(-1, 1);
  const int reach = static_cast<int>(std::ceil(force_kf_ + 0.5));
  std::uniform_int_distribution<int> mode(-reach, reach);
  Vec3 k;
  for (;;) {  // a wavevector of the shell kf - 1/2 <= |n| < kf + 1/2, n integer on active axes
    int n[3] = {0, 0, 0};
    for (int a = 0; a < 3; ++a) n[a] = g.active(a) ? mode(force_rng_) : 0;
    const real len = std::sqrt(real(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]));
    if (len < force_kf_ - 0.5 || len >= force_kf_ + 0.5 || len == 0) continue;
    k = vec3(2 * M_PI * n[0] / g.length[0], 2 * M_PI * n[1] / g.length[1],
             2 * M_PI * n[2] / g.length[2]);
    break;
  }
  Vec3 e;
  const real kk = std::sqrt(dot(k, k));
  for (;;) {  // a random unit vector not nearly parallel to k
    e = {unit(force_rng_), unit(force_rng_), unit(force_rng_)};
    const real ee = std::sqrt(dot(e, e));
    if (ee > 1 || ee < 0.1) continue;
    e = (1 / ee) * e;
    if (std::fabs(dot(k, e)) < 0.9 * kk) break;
  }
  const real phase = M_PI * (1 + unit(force_rng_));
  // f_k = (k x (k x e) - i sigma |k| (k x e)) / (k^2 sqrt(1 + sigma^2) sqrt(1 - (k.e)^2 / k^2)):
  // unit amplitude, helicity fraction sigma; scaled by f0 cs0 sqrt(|k| cs0 / dt) (white in time).
  const real ke = dot(k, e) / kk;
  const real cs0 = std::sqrt(ph_.cs2_0);
  const real scale =
      force_f0_ * cs0 * std::sqrt(kk * cs0 / dt) /
      (kk * kk * std::sqrt(1 + force_sigma_ * force_sigma_) * std::sqrt(1 - ke * ke));
  const Vec3 kxe = cross(k, e);
  force_.k = k;
  force_.re = scale * cross(k, kxe);
  force_.im = (-scale * force_sigma_ * kk) * kxe;
  force_.phase = phase;
  force_.offset = dec_.offset();
  force_.origin = vec3(g.origin[0], g.origin[1], g.origin[2]);
  force_.dx = vec3(g.spacing(0), g.spacing(1), g.spacing(2));
}

}  // namespace staghorn::mhd
