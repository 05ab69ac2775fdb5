#pragma once
// Helpers shared by the tests.
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/field.hpp"

namespace staghorn::test {

// The CPU, and the first GPU where one is visible: the backends a kernel test runs on.
inline std::vector<Exec> backends() {
  std::vector<Exec> b{Exec::cpu()};
  if (cuda_device_count() > 0) b.push_back(Exec::cuda(0));
  return b;
}

// Regions of the shapes a reduction kernel's block mapping could get wrong.
inline const std::vector<Region>& reduction_regions() {
  static const std::vector<Region> r = {
      {{0, 0, 0}, {70, 45, 9}},   // many blocks in every direction
      {{-2, -1, 0}, {3, 5, 2}},   // negative indices (a halo)
      {{4, 0, 3}, {5, 1, 4}},     // one cell
      {{0, 0, 0}, {1000, 3, 1}},  // one thin slab
      {{0, 0, 0}, {33, 9, 300}},  // deep in z
  };
  return r;
}

// f(i, j, k) for every cell of `r`, x fastest (serial references of kernels).
template <class F>
void for_cells(const Region& r, F f) {
  for (int k = r.lo.z; k < r.hi.z; ++k)
    for (int j = r.lo.y; j < r.hi.y; ++j)
      for (int i = r.lo.x; i < r.hi.x; ++i) f(i, j, k);
}

// Every rank's `local` text on every rank, so that a failure on any rank shows in rank 0's output.
inline std::string gather_text(const Comm& comm, const std::string& local) {
  const int len = static_cast<int>(local.size());
  std::vector<int> lens(comm.size()), displs(comm.size(), 0);
  MPI_Allgather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, comm.get());
  for (int r = 1; r < comm.size(); ++r) displs[r] = displs[r - 1] + lens[r - 1];
  std::string all(displs.back() + lens.back(), '\0');
  MPI_Allgatherv(local.data(), len, MPI_CHAR, &all[0], lens.data(), displs.data(), MPI_CHAR,
                 comm.get());
  std::string out;
  for (int r = 0; r < comm.size(); ++r)
    if (lens[r] > 0) out += "rank " + std::to_string(r) + ": " + all.substr(displs[r], lens[r]);
  return out;
}

// Interior values of a field on this rank, x fastest; with_high_faces: also the layer at index n
// along each axis (the closing faces and edges of the high walls of a staggered field).
inline std::vector<real> interior_values(const Field& f, bool with_high_faces = false) {
  const std::vector<real> all = f.to_host();
  const Layout& l = f.layout();
  const int e = with_high_faces ? 1 : 0;
  std::vector<real> out;
  out.reserve(static_cast<std::size_t>(l.n.x + e) * (l.n.y + e) * (l.n.z + e));
  for (int k = 0; k < l.n.z + e; ++k)
    for (int j = 0; j < l.n.y + e; ++j)
      for (int i = 0; i < l.n.x + e; ++i) out.push_back(all[l.index(i, j, k)]);
  return out;
}

// The bits of a value, for comparisons to the bit that tell -0 from 0 and one NaN from another.
inline std::uint64_t bits_of(real x) {
  std::conditional_t<sizeof(real) == 8, std::uint64_t, std::uint32_t> b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// Every point of a field on this rank, halo and ghosts included (Layout::all()), x fastest.
inline std::vector<real> all_values(const Field& f) {
  const std::vector<real> all = f.to_host();
  const Layout& l = f.layout();
  const Region r = l.all();
  std::vector<real> out;
  for (int k = r.lo.z; k < r.hi.z; ++k)
    for (int j = r.lo.y; j < r.hi.y; ++j)
      for (int i = r.lo.x; i < r.hi.x; ++i) out.push_back(all[l.index(i, j, k)]);
  return out;
}

// Two runs' values of a field at every point (all_values) after iterations from `start`: the
// largest change of the reference `ref`, the largest difference of `other` from it (infinite where
// `other` is not finite) and the largest change of `ref` among the ghosts beyond the x sides.
struct AllPoints {
  double change = 0, diff = 0, x_ghost_change = 0;
};
inline AllPoints compare_all_points(const Layout& l, const std::vector<real>& start,
                                    const std::vector<real>& ref, const std::vector<real>& other) {
  AllPoints c;
  const Region r = l.all();
  std::size_t q = 0;
  for (int k = r.lo.z; k < r.hi.z; ++k)
    for (int j = r.lo.y; j < r.hi.y; ++j)
      for (int i = r.lo.x; i < r.hi.x; ++i, ++q) {
        const double moved = std::fabs(ref[q] - start[q]);
        c.change = std::fmax(c.change, moved);
        if (i < 0 || i >= l.n.x) c.x_ghost_change = std::fmax(c.x_ghost_change, moved);
        c.diff =
            std::isfinite(other[q]) ? std::fmax(c.diff, std::fabs(other[q] - ref[q])) : INFINITY;
      }
  return c;
}

// Message of the staghorn::Error (or subclass) `f` throws, or "<no error>".
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace staghorn::test
