#pragma once
// The instruction set this build's host code was compiled for (CMake STAGHORN_CPU_ARCH), checked
// against the CPU at start-up: a binary built for AVX2 would otherwise die of SIGILL on an older
// CPU without a word.
#include <string>

namespace staghorn {

// The extensions this build uses and this CPU lacks (" avx2 fma"), empty when it runs here.
std::string missing_host_isa();

}  // namespace staghorn
