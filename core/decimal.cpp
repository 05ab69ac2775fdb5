#include "core/decimal.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <system_error>

namespace staghorn {
namespace {

using Wide = __int128;

// A finite double as mantissa * 10^exponent, taken from its shortest decimal text.
struct Decimal {
  Wide mantissa = 0;
  int exponent = 0;
};

Decimal decimal_of(double x) {
  const std::string text = shortest(x);
  Decimal d;
  bool negative = false, fraction = false;
  std::size_t i = 0;
  for (; i < text.size() && text[i] != 'e'; ++i) {
    const char c = text[i];
    if (c == '-') {
      negative = true;
    } else if (c == '.') {
      fraction = true;
    } else {
      d.mantissa = d.mantissa * 10 + (c - '0');
      if (fraction) --d.exponent;
    }
  }
  if (i < text.size()) d.exponent += std::atoi(text.c_str() + i + 1);
  if (negative) d.mantissa = -d.mantissa;
  return d;
}

// m * 10^k, or nothing when it would leave the range of Wide (kept well inside it).
std::optional<Wide> scaled(Wide m, int k) {
  constexpr Wide limit = Wide(1) << 120;
  for (; k > 0; --k) {
    if (m > limit / 10 || m < -limit / 10) return std::nullopt;
    m *= 10;
  }
  return m;
}

std::string to_text(Wide v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string digits;
  for (; v != 0; v /= 10) {
    const int r = static_cast<int>(v % 10);
    digits.insert(digits.begin(), static_cast<char>('0' + (r < 0 ? -r : r)));
  }
  return negative ? "-" + digits : digits;
}

}  // namespace

std::string shortest(double x) {
  char buf[32];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

double decimal_time(double t0, long long n, double dt) {
  if (!std::isfinite(t0) || !std::isfinite(dt)) return t0 + static_cast<double>(n) * dt;
  const Decimal a = decimal_of(t0), b = decimal_of(dt);
  const int e = a.exponent < b.exponent ? a.exponent : b.exponent;
  const std::optional<Wide> ma = scaled(a.mantissa, a.exponent - e);
  const std::optional<Wide> mb = scaled(b.mantissa, b.exponent - e);
  constexpr Wide limit = Wide(1) << 120;
  const Wide steps = n;
  const auto magnitude = [](Wide v) { return v < 0 ? -v : v; };
  if (!ma || !mb || (*mb != 0 && magnitude(steps) > limit / magnitude(*mb)))
    return t0 + static_cast<double>(n) * dt;
  const Wide sum = *ma + steps * *mb;
  // strtod rounds a decimal text correctly: the one rounding of the whole computation.
  return std::strtod((to_text(sum) + "e" + std::to_string(e)).c_str(), nullptr);
}

}  // namespace staghorn
