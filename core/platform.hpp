#pragma once
// What every translation unit needs to know about the compiler it is seen by.

#if defined(__CUDACC__)
#define SH_HD __host__ __device__
#else
#define SH_HD
#endif

namespace staghorn {
using real = double;
}  // namespace staghorn
