#pragma once
// Decimal views of doubles: the shortest text that reads back to the same double, and model times
// computed in decimal so that t0 + n * dt gives the double nearest the decimal result (0.3, not
// 0.30000000000000004) whatever n, and a restart continues the times of the run it came from.

#include <string>

namespace staghorn {

// The shortest decimal text that parses back to `x` exactly ("0.1", "2.5e-07", "nan", "inf").
std::string shortest(double x);

// t0 + n * dt evaluated exactly on the decimal forms of t0 and dt (their `shortest` texts), then
// rounded once to the nearest double. Falls back to the double expression when the exact integer
// would not fit in 128 bits (a dt many decades below t0), or for non-finite input.
double decimal_time(double t0, long long n, double dt);

}  // namespace staghorn
