#include "models/materials/random_inclusions.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

namespace staghorn::materials {
namespace {

// Attempts per sphere before giving up: enough for area fractions well past those of the
// published benchmarks (~0.2), few enough to fail in about a second.
constexpr int kAttempts = 20000;
// Distance checks the whole placement may make (each attempt checks every sphere placed).
constexpr double kCheckBudget = 5e8;

// A uniform double in [0, 1) from the top 53 bits: the same on every standard library (unlike
// std::uniform_real_distribution, whose algorithm is implementation-defined).
struct Uniform {
  std::mt19937_64 gen;
  double operator()() { return static_cast<double>(gen() >> 11) * 0x1.0p-53; }
};

// The volume of a ball of radius r in the grid's dimensions (a disc's area in 2-D).
double ball(const Grid& g, double r) {
  const int d = g.dims();
  return d == 1 ? 2 * r : (d == 2 ? M_PI * r * r : 4 * M_PI / 3 * r * r * r);
}

// Spheres that cannot fit whatever their places: each with half the gap around it, they are
// disjoint and inside the domain grown by half the gap at each bounded side.
void check_volume(const PhaseOptions& p, const Grid& g, const std::vector<real>& radii, real gap) {
  double spheres = 0, domain = 1;
  for (real r : radii) spheres += ball(g, r + gap / 2);
  for (int a = 0; a < g.dims(); ++a) domain *= g.length[a] + (g.periodic[a] ? 0 : gap);
  if (spheres <= domain) return;
  std::ostringstream s;
  s << p.key << ".count: " << *p.count << " inclusions (radius " << *p.radius_min << " to "
    << p.radius_max.value_or(*p.radius_min) << ", gap " << gap << ") take a volume of " << spheres
    << ", more than the domain's " << domain << ": they cannot fit; lower count, the radii or gap";
  throw io::ConfigError(s.str());
}

bool fits(const Grid& g, const std::vector<Body>& placed, const std::array<real, 3>& c, real r,
          real gap) {
  for (const Body& b : placed) {
    real d2 = 0;
    for (int a = 0; a < g.dims(); ++a) {
      const real d = displacement(g, a, c[a], b.centre[a]);
      d2 += d * d;
    }
    const real least = r + b.half[0] + gap;
    if (d2 < least * least) return false;
  }
  return true;
}

std::string over_budget(const PhaseOptions& p, std::size_t placed) {
  std::ostringstream s;
  s << p.key << ".count: placing " << *p.count << " inclusions took more than " << kCheckBudget
    << " distance checks (" << placed << " placed); lower count, the radii or gap";
  return s.str();
}

std::string describe(const PhaseOptions& p, std::size_t placed) {
  std::ostringstream s;
  s << p.key << ".count: placed only " << placed << " of " << *p.count
    << " non-overlapping inclusions (radius " << *p.radius_min << " to "
    << p.radius_max.value_or(*p.radius_min) << ", gap " << p.gap.value_or(0) << ") after "
    << kAttempts << " attempts for the next; lower count, the radii or gap, or change seed";
  return s.str();
}

}  // namespace

std::vector<Body> random_inclusions(const PhaseOptions& p, const Grid& g) {
  const real rmin = *p.radius_min, rmax = p.radius_max.value_or(rmin), gap = p.gap.value_or(0);
  if (rmax < rmin) throw io::ConfigError(p.key + ".radius_max: must be >= radius_min");
  for (int a = 0; a < g.dims(); ++a)
    if (!g.periodic[a] && 2 * rmax > g.length[a])
      throw io::ConfigError(p.key + ".radius_max: a sphere of diameter " +
                            std::to_string(2 * rmax) + " does not fit the domain along axis " +
                            std::to_string(a));
  Uniform u{std::mt19937_64(p.seed)};
  std::vector<real> radii(*p.count);
  for (real& r : radii) r = rmin + (rmax - rmin) * u();
  std::stable_sort(radii.begin(), radii.end(), [](real a, real b) { return a > b; });
  check_volume(p, g, radii, gap);
  std::vector<Body> placed;
  double checks = 0;
  for (real r : radii) {
    bool done = false;
    for (int t = 0; t < kAttempts && !done; ++t) {
      checks += static_cast<double>(placed.size());
      if (checks > kCheckBudget) throw io::ConfigError(over_budget(p, placed.size()));
      std::array<real, 3> c;
      for (int a = 0; a < 3; ++a) {
        const real lo = g.origin[a] + (g.periodic[a] ? 0 : r);
        const real span = g.periodic[a] ? g.length[a] : g.length[a] - 2 * r;
        c[a] = a < g.dims() ? lo + span * u() : g.origin[a] + g.length[a] / 2;
      }
      if ((done = fits(g, placed, c, r, gap))) placed.push_back(sphere(c, r));
    }
    if (!done) throw io::ConfigError(describe(p, placed.size()));
  }
  return placed;
}

}  // namespace staghorn::materials
