#pragma once
// Runtime choices to template arguments, in one place (in the spirit of AMReX's AnyCTO): a kernel
// is compiled once per value it may take (an order, a dimension, a flag), and
//   dispatch<1, 2, 3>("grid dimensions", dims, [&](auto d) { run<decltype(d)::value>(); });
// calls the lambda with std::integral_constant<int, d> for the listed value equal to `dims`, or
// throws naming the choice and the value when none is. Choices nest: one call per choice.

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace staghorn {

template <auto V>
using Constant = std::integral_constant<decltype(V), V>;

template <auto First, auto... Rest, class F>
decltype(auto) dispatch(const char* what, decltype(First) value, F&& f) {
  if (value == First) return std::forward<F>(f)(Constant<First>{});
  if constexpr (sizeof...(Rest) > 0) {
    return dispatch<Rest...>(what, value, std::forward<F>(f));
  } else {
    throw std::invalid_argument(std::string(what) + ": no kernel compiled for the value " +
                                std::to_string(value));
  }
}

// The indices 0 .. N - 1 of a compile-time table, so that the table's length alone decides which
// kernels are compiled:
//   dispatch_index<kShapeCount>("shape", i, [&](auto s) { run<kShapes[decltype(s)::value]>(); });
namespace detail {
template <int... I, class F>
decltype(auto) dispatch_sequence(const char* what, int value, std::integer_sequence<int, I...>,
                                 F&& f) {
  return dispatch<I...>(what, value, std::forward<F>(f));
}
}  // namespace detail

template <int N, class F>
decltype(auto) dispatch_index(const char* what, int value, F&& f) {
  static_assert(N > 0, "an empty table has no index to dispatch to");
  return detail::dispatch_sequence(what, value, std::make_integer_sequence<int, N>{},
                                   std::forward<F>(f));
}

// The two values of a flag.
template <class F>
decltype(auto) dispatch_bool(const char* what, bool value, F&& f) {
  return dispatch<false, true>(what, value, std::forward<F>(f));
}

// For a choice that also has a kernel reading the value at run time: a listed value is compiled in,
// any other goes to the kernel instantiated for `Fallback`, never an error.
//   dispatch_or<-1, 0, 3>(n, [&](auto n) { run<decltype(n)::value>(); });
// runs run<0> for n = 0, run<3> for n = 3 and run<-1> (n read at run time) for every other n.
template <auto Fallback, auto... Listed, class F>
decltype(auto) dispatch_or(decltype(Fallback) value, F&& f);

namespace detail {
template <auto Fallback, auto First, auto... Rest, class F>
decltype(auto) dispatch_or_from(decltype(Fallback) value, F&& f) {
  if (value == First) return std::forward<F>(f)(Constant<First>{});
  return dispatch_or<Fallback, Rest...>(value, std::forward<F>(f));
}
}  // namespace detail

template <auto Fallback, auto... Listed, class F>
decltype(auto) dispatch_or(decltype(Fallback) value, F&& f) {
  if constexpr (sizeof...(Listed) == 0) {
    (void)value;
    return std::forward<F>(f)(Constant<Fallback>{});
  } else {
    return detail::dispatch_or_from<Fallback, Listed...>(value, std::forward<F>(f));
  }
}

}  // namespace staghorn
