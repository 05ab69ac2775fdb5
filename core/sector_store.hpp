#pragma once
// The store of an x side's ghost with the rest of its 32-byte sector, for halos one cell wide:
// used by the kernels that set their walls' ghosts themselves (core/face_ghosts.hpp, the Stokes
// x walls).

#include <cstddef>

#include "core/field.hpp"
#include "core/platform.hpp"

namespace staghorn {

// Stores v at p[g], the face ghost beyond side `side` (2 axis + 0 low / 1 high) of a field whose
// halo is one cell wide along x, p at its local origin. On a GPU an x side's ghost takes its
// whole 32-byte sector: the rest of that sector is the row's padding (Layout: every row's first
// interior cell, and so its local origin, lies on a 128-byte line; the low ghost is index -1, the
// high one the row's last index), and the memory writes a whole sector once where a sector
// written in part costs it a read besides. Elsewhere the ghost alone.
static_assert(Layout::kAlign % (32 / sizeof(real)) == 0, "rows start on a sector");
SH_HD inline void store_face_ghost(real* p, std::ptrdiff_t g, real v, [[maybe_unused]] int side) {
#ifdef __CUDA_ARCH__
  if (side < 2) {
    constexpr int kSector = 32 / sizeof(real);
    // Low side: the ghost (index -1) ends its sector. High side: it sits where n.x puts it.
    const int at = side == 0 ? kSector - 1 : static_cast<int>(g) & (kSector - 1);
    real* sector = p + (g - at);
#pragma unroll
    for (int c = 0; c < kSector; ++c)
      if (side == 0 || c >= at) sector[c] = v;
    return;
  }
#endif
  p[g] = v;
}

}  // namespace staghorn
