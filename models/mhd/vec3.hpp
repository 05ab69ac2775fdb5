#pragma once
// Small 3-vectors for kernels that read like the vector equations they implement.

#include "core/platform.hpp"

namespace staghorn::mhd {

struct Vec3 {
  real x = 0, y = 0, z = 0;
  SH_HD constexpr real operator[](int a) const { return a == 0 ? x : (a == 1 ? y : z); }
  SH_HD real& operator[](int a) { return a == 0 ? x : (a == 1 ? y : z); }
};

// From double values (geometry is double), rounded to real once.
SH_HD inline Vec3 vec3(double x, double y, double z) { return {real(x), real(y), real(z)}; }

SH_HD inline Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
SH_HD inline Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
SH_HD inline Vec3 operator*(real s, Vec3 a) { return {s * a.x, s * a.y, s * a.z}; }
SH_HD inline real dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
SH_HD inline Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

// A 3 x 3 matrix, m[i][j]: e.g. the velocity gradient d u_i / d x_j.
struct Mat3 {
  real m[3][3];
  SH_HD Vec3 row(int i) const { return {m[i][0], m[i][1], m[i][2]}; }
  SH_HD real trace() const { return m[0][0] + m[1][1] + m[2][2]; }
};

// (M v)_i = sum_j M_ij v_j.
SH_HD inline Vec3 operator*(const Mat3& M, Vec3 v) {
  return {dot(M.row(0), v), dot(M.row(1), v), dot(M.row(2), v)};
}

}  // namespace staghorn::mhd
