#pragma once
// Compile-time loops: unroll<B, E>(f) calls f(std::integral_constant<int, i>{}) for i = B .. E - 1
// in that order. The index is a constant in each call, so no compiler has a loop to unroll and
// branches on the index fold away: gcc does not unroll the short loops of a stencil (points,
// axes) before it vectorises a loop over cells around them, and gives up on their control flow.

#include <type_traits>
#include <utility>

#include "core/platform.hpp"

namespace staghorn {
namespace detail {
template <int B, class F, int... I>
SH_HD inline void unroll(F& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, B + I>{}), ...);
}
}  // namespace detail

template <int B, int E, class F>
SH_HD inline void unroll(F&& f) {
  detail::unroll<B>(f, std::make_integer_sequence<int, E - B>{});
}

}  // namespace staghorn
