#pragma once
// Tests written for double arithmetic, in a build where real is float (STAGHORN_SINGLE_PRECISION):
// a bound that counts round-off errors grows with the unit round-off, by eps_float / eps_double =
// 2^29. Tests that measure something else (a convergence order, a tolerance reached) say why they
// skip or change in single precision where they do.
#include "core/platform.hpp"

namespace staghorn::test {

constexpr bool kSinglePrecision = sizeof(real) == sizeof(float);

// A round-off bound set for double, scaled to the precision of this build.
constexpr double roundoff(double double_bound) {
  return kSinglePrecision ? double_bound * 536870912.0 : double_bound;
}

}  // namespace staghorn::test
