// Initial conditions, evaluated once on the host at cell centres from global indices (the same
// state on any decomposition).
#include <cmath>
#include <cstdint>

#include "models/mhd/mhd.hpp"

namespace staghorn::mhd {
namespace {

// Uniform in [-1, 1) from (seed, global cell, variable): splitmix64 of a unique key.
real noise(std::uint64_t seed, long long cell, int var) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(cell) * 16 + var;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (z >> 11) * (2.0 / 9007199254740992.0) - 1;
}

Vec3 vec(const io::json& j) { return {j[0].get<real>(), j[1].get<real>(), j[2].get<real>()}; }

// A unit vector perpendicular to k (the polarisation of transverse waves).
Vec3 perpendicular(Vec3 k) {
  const Vec3 t = std::fabs(k.x) <= std::fabs(k.y) && std::fabs(k.x) <= std::fabs(k.z)
                     ? Vec3{1, 0, 0}
                     : (std::fabs(k.y) <= std::fabs(k.z) ? Vec3{0, 1, 0} : Vec3{0, 0, 1});
  const Vec3 p = cross(k, t);
  return (1 / std::sqrt(dot(p, p))) * p;
}

}  // namespace

void Mhd::set_initial(const io::json& ic) {
  const Grid& g = dec_.grid();
  const std::string type = ic["type"].get<std::string>();
  const real amp = ic["amplitude"].get<real>();
  const real famp = ic["field_amplitude"].get<real>();
  const real sigma = ic["sigma"].get<real>();
  const std::uint64_t seed = ic["seed"].get<long long>();
  const Vec3 n = vec(ic["wavenumber"]);
  const Vec3 k = vec3(2 * M_PI * n.x / g.length[0], 2 * M_PI * n.y / g.length[1],
                      2 * M_PI * n.z / g.length[2]);
  const real kk = std::sqrt(dot(k, k));
  if (kk == 0 && (type == "sound_wave" || type == "alfven_wave" || type == "abc_flow"))
    throw io::ConfigError("mhd.initial.wavenumber: must not be zero for " + type);
  real c[3];
  for (int a = 0; a < 3; ++a)
    c[a] = ic["center"].is_null() ? g.origin[a] + g.length[a] / 2 : ic["center"][a].get<real>();
  const Vec3 center{c[0], c[1], c[2]};
  const real cs0 = std::sqrt(ph_.cs2_0);
  const Vec3 khat = kk > 0 ? (1 / kk) * k : Vec3{1, 0, 0};
  const Vec3 pol = perpendicular(khat);
  const real rho0 = std::exp(ph_.lnrho0);

  std::vector<std::vector<real>> host(vars());
  for (int v = 0; v < vars(); ++v) host[v] = f_[v].to_host();
  const Int3 nl = layout_.n, off = dec_.offset();
  for (int kz = 0; kz < nl.z; ++kz)
    for (int jy = 0; jy < nl.y; ++jy)
      for (int ix = 0; ix < nl.x; ++ix) {
        const int gi[3] = {ix + off.x, jy + off.y, kz + off.z};
        const long long cell = gi[0] + (long long)g.n[0] * (gi[1] + (long long)g.n[1] * gi[2]);
        const Vec3 x =
            vec3(g.coordinate(Location::cell, 0, gi[0]), g.coordinate(Location::cell, 1, gi[1]),
                 g.coordinate(Location::cell, 2, gi[2]));
        real s[kMaxVars] = {ph_.lnrho0, 0, 0, 0, 0, 0, 0, 0};
        const real phase = dot(k, x), sn = std::sin(phase);
        if (type == "noise") {
          for (int v : {kLnrho, kUx, kUy, kUz, kSs}) s[v] += amp * noise(seed, cell, v);
        } else if (type == "sound_wave") {  // travelling along k at c_s (isentropic)
          s[kLnrho] += amp * sn;
          for (int a = 0; a < 3; ++a) s[kUx + a] = cs0 * amp * sn * khat[a];
        } else if (type == "alfven_wave") {  // travelling along k at v_A if B_ext || k
          // u = amp pol sin(k.x), B = -sqrt(mu0 rho0) u; A = (k x b) cos(k.x) / k^2.
          const Vec3 b = (-std::sqrt(ph_.mu0 * rho0) * amp) * pol;
          const Vec3 A = (std::cos(phase) / (kk * kk)) * cross(k, b);
          for (int a = 0; a < 3; ++a) s[kUx + a] = amp * sn * pol[a], s[kAx + a] = A[a];
        } else if (type == "abc_flow") {  // A = B = C = 1 at wavenumber |k|
          const real X = kk * x.x, Y = kk * x.y, Z = kk * x.z;
          s[kUx] = amp * (std::sin(Z) + std::cos(Y));
          s[kUy] = amp * (std::sin(X) + std::cos(Z));
          s[kUz] = amp * (std::sin(Y) + std::cos(X));
        } else if (type == "gaussian_blobs") {  // a density blob and a flux tube along z
          real r2 = 0;
          for (int a = 0; a < g.dims(); ++a) {
            real d = x[a] - center[a];
            d -= g.length[a] * std::round(d / g.length[a]);  // nearest periodic image
            r2 += d * d;
          }
          const real blob = std::exp(-r2 / (2 * sigma * sigma));
          s[kLnrho] += amp * blob;
          s[kAz] += famp * blob;
        }
        // A small random seed field on top of any flow (dynamo runs), except the blob's own.
        if (type != "gaussian_blobs")
          for (int v : {kAx, kAy, kAz}) s[v] += famp * noise(seed + 1, cell, v);
        for (int v = 0; v < vars(); ++v) host[v][layout_.index(ix, jy, kz)] = s[v];
      }
  for (int v = 0; v < vars(); ++v) f_[v].from_host(host[v]);
}

}  // namespace staghorn::mhd
