#pragma once
// A message to print, bounded whatever the input it quotes: a 10 MB key or a number of 100000
// digits is cut, not echoed whole.

#include <string>

namespace staghorn {

// `message` with every word (a run without white space) longer than 160 bytes cut to its first
// 120 bytes and "...[N bytes]", every line likewise beyond 1000 bytes, and the lines after the
// 60th replaced by "... (N more lines)". Cuts fall between UTF-8 characters.
std::string bounded_message(const std::string& message);

}  // namespace staghorn
