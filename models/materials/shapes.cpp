#include "models/materials/shapes.hpp"

#include <cmath>

namespace staghorn::materials {
namespace {

constexpr real kInf = std::numeric_limits<real>::infinity();

// R = Rz(a) Ry(b) Rx(c) (degrees): its columns are the body's axes in the grid's frame.
std::array<std::array<real, 3>, 3> rotation_axes(const std::array<real, 3>& deg) {
  const real r = real(M_PI) / 180;
  const real ca = std::cos(deg[0] * r), sa = std::sin(deg[0] * r);
  const real cb = std::cos(deg[1] * r), sb = std::sin(deg[1] * r);
  const real cc = std::cos(deg[2] * r), sc = std::sin(deg[2] * r);
  const real R[3][3] = {{ca * cb, ca * sb * sc - sa * cc, ca * sb * cc + sa * sc},
                        {sa * cb, sa * sb * sc + ca * cc, sa * sb * cc - ca * sc},
                        {-sb, cb * sc, cb * cc}};
  std::array<std::array<real, 3>, 3> axes;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) axes[j][i] = R[i][j];
  return axes;
}

// The bounding half extents of a rotated ellipsoid (quadratic) or box (linear) of half sizes s.
std::array<real, 3> rotated_bound(const Body& b, bool ellipsoid) {
  std::array<real, 3> out{};
  for (int a = 0; a < 3; ++a) {
    real sum = 0;
    for (int j = 0; j < 3; ++j) {
      const real t = b.axes[j][a] * b.half[j];
      sum += ellipsoid ? t * t : std::fabs(t);
    }
    out[a] = ellipsoid ? std::sqrt(sum) : sum;
  }
  return out;
}

std::array<real, 3> centre_or_middle(const PhaseOptions& p, const Grid& g) {
  std::array<real, 3> c;
  for (int a = 0; a < 3; ++a) c[a] = p.center ? (*p.center)[a] : g.origin[a] + g.length[a] / 2;
  return c;
}

}  // namespace

real displacement(const Grid& g, int a, real x, real centre) {
  real d = x - centre;
  if (g.periodic[a]) d -= g.length[a] * std::round(d / g.length[a]);  // nearest image
  return d;
}

Body sphere(const std::array<real, 3>& c, real r) {
  Body b;
  b.shape = Shape::sphere;
  b.centre = c;
  b.half = {r, r, r};
  b.bound = {r, r, r};
  return b;
}

bool Body::contains(const Grid& g, const real x[3]) const {
  const int dims = g.dims();
  if (shape == Shape::layer) {
    real s = 0;
    for (int a = 0; a < dims; ++a) s += normal[a] * x[a];
    return s >= from && s <= to;
  }
  real d[3] = {0, 0, 0};
  for (int a = 0; a < dims; ++a) d[a] = displacement(g, a, x[a], centre[a]);
  if (shape == Shape::sphere) {  // the same operations as the single stokes.inclusion had
    real r2 = 0;
    for (int a = 0; a < dims; ++a) r2 += d[a] * d[a];
    return r2 < half[0] * half[0];
  }
  real q = 0;
  for (int j = 0; j < dims; ++j) {
    real local = 0;  // the component along the body's axis j
    for (int a = 0; a < dims; ++a) local += axes[j][a] * d[a];
    if (shape == Shape::box && std::fabs(local) > half[j]) return false;
    q += (local / half[j]) * (local / half[j]);
  }
  return shape == Shape::box || q < 1;
}

bool Body::near(const Grid& g, const real x[3]) const {
  for (int a = 0; a < g.dims(); ++a)
    if (std::fabs(displacement(g, a, x[a], centre[a])) > bound[a] + g.spacing(a) / 2) return false;
  return true;
}

bool Body::meets_domain(const Grid& g) const {
  const int dims = g.dims();
  if (shape == Shape::layer) {  // the slab's range of n . x over the box's corners
    real lo = 0, hi = 0;
    for (int a = 0; a < dims; ++a) {
      const real p = normal[a] * g.origin[a], q = normal[a] * (g.origin[a] + g.length[a]);
      lo += std::fmin(p, q);
      hi += std::fmax(p, q);
    }
    return from <= hi && to >= lo;
  }
  for (int a = 0; a < dims; ++a) {
    if (g.periodic[a]) continue;  // every centre has an image in the domain
    if (centre[a] + bound[a] <= g.origin[a] || centre[a] - bound[a] >= g.origin[a] + g.length[a])
      return false;
  }
  return true;
}

Body body_of(const PhaseOptions& p, const Grid& g) {
  if (g.dims() < 3 && (p.rotation[1] != 0 || p.rotation[2] != 0))
    throw io::ConfigError(p.key + ".rotation: a 2-D grid rotates about z only ([angle, 0, 0])");
  Body b;
  b.shape = p.shape;
  switch (p.shape) {
    case Shape::sphere:
      return sphere(centre_or_middle(p, g), *p.radius);
    case Shape::ellipsoid:
      b.centre = centre_or_middle(p, g);
      b.half = *p.semi_axes;
      b.axes = rotation_axes(p.rotation);
      b.bound = rotated_bound(b, true);
      return b;
    case Shape::box:
      for (int a = 0; a < g.dims(); ++a) {
        if (!((*p.lo)[a] < (*p.hi)[a]))
          throw io::ConfigError(p.key + ".hi[" + std::to_string(a) + "]: must be above lo[" +
                                std::to_string(a) + "]");
        b.centre[a] = ((*p.lo)[a] + (*p.hi)[a]) / 2;
        b.half[a] = ((*p.hi)[a] - (*p.lo)[a]) / 2;
      }
      b.axes = rotation_axes(p.rotation);
      b.bound = rotated_bound(b, false);
      return b;
    case Shape::layer: {
      real n = 0;
      for (int a = 0; a < g.dims(); ++a) n += (*p.normal)[a] * (*p.normal)[a];
      if (!(n > 0)) throw io::ConfigError(p.key + ".normal: must not be zero in the grid's axes");
      if (!(*p.from < *p.to)) throw io::ConfigError(p.key + ".to: must be above from");
      for (int a = 0; a < g.dims(); ++a) b.normal[a] = (*p.normal)[a] / std::sqrt(n);
      b.from = *p.from;
      b.to = *p.to;
      b.bound = {kInf, kInf, kInf};
      return b;
    }
    case Shape::random_inclusions:
      break;
  }
  throw io::ConfigError(p.key + ".shape: random_inclusions has many bodies");
}

}  // namespace staghorn::materials
