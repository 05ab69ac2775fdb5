#pragma once
// What every translation unit needs to know about the compiler it is seen by.

#if defined(__CUDACC__)
#define SH_HD __host__ __device__
#else
#define SH_HD
#endif

namespace staghorn {
// The floating-point type of fields and kernels: double, or float in a build configured with
// -DSTAGHORN_SINGLE_PRECISION=ON (half the bytes per cell; docs/architecture.md). Grid geometry,
// model time and the diagnostics time series stay double.
#if defined(STAGHORN_SINGLE_PRECISION)
using real = float;
#else
using real = double;
#endif
}  // namespace staghorn
