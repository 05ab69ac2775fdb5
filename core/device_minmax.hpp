#pragma once
// CUDA's own double fmax and fmin on the device, the selects of core/platform.hpp's fmax and fmin
// on the host: for a kernel at its register limit whose allocation spills less with them (the
// coupled tiled kernel's visco-elastic variant, models/hydromech/coupled_kernels.hpp). The same
// values as fmax and fmin for every pair without NaN.

#include "core/platform.hpp"

namespace staghorn {

#if defined(__CUDA_ARCH__)
SH_HD inline double cuda_fmax(double a, double b) { return ::fmax(a, b); }
SH_HD inline double cuda_fmin(double a, double b) { return ::fmin(a, b); }
#else
SH_HD inline double cuda_fmax(double a, double b) { return fmax(a, b); }
SH_HD inline double cuda_fmin(double a, double b) { return fmin(a, b); }
#endif

}  // namespace staghorn
