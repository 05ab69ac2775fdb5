#pragma once
// Whether a state is finite, so that no snapshot of a broken state is ever written or named as
// the last good one, and a run stops at the first step whose state is not finite.

#include <string>
#include <vector>

#include "core/decomposition.hpp"
#include "core/field.hpp"

namespace staghorn {

// The name of the first of `fields` (in their order) with a non-finite value (NaN or Inf) at a
// point some rank owns (the points a snapshot writes), or "" when all are finite. Collective over
// dec.comm(): one reduction over ranks for all fields; every rank gets the same answer.
std::string first_non_finite(const Exec& ex, const Decomposition& dec,
                             const std::vector<const Field*>& fields);

}  // namespace staghorn
