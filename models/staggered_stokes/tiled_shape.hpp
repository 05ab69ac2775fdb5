#pragma once
// A launch shape of the tiled staggered-grid kernels (Stokes' and the coupled hydro-mechanics
// one), in a header any compiler reads: threads per block along x and y (the tile is two cells
// narrower), blocks per SM (__launch_bounds__: registers per thread 65536 / (threads x blocks), at
// most 255) and cells along z per block; and the name benchmarks give it.

#include <string>

namespace staghorn::stokes::tiled {

struct Shape {
  int tx, ty, blocks, chunk;
};

// "34x15x1 chunk 16": the ledger's row names are made of it.
inline std::string label(const Shape& s) {
  return std::to_string(s.tx) + "x" + std::to_string(s.ty) + "x" + std::to_string(s.blocks) +
         " chunk " + std::to_string(s.chunk);
}

}  // namespace staghorn::stokes::tiled
