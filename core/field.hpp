#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/backend.hpp"
#include "core/geometry.hpp"
#include "core/memory.hpp"

namespace staghorn {

// The padded shape of one local block, shared by every field of a model: `n` interior cells and a
// halo of `h` cells on each side of every active axis. Local index (0,0,0) is the first interior
// cell; halo cells have indices in [-h, 0) and [n, n + h). x is fastest. Rows are padded so that
// every row's first interior cell sits on a 128-byte boundary: a warp's loads then touch the
// fewest cache lines.
struct Layout {
  Int3 n, h;
  static constexpr int kAlign = 128 / sizeof(real);

  Int3 padded() const { return {n.x + 2 * h.x, n.y + 2 * h.y, n.z + 2 * h.z}; }
  int front() const { return h.x == 0 ? 0 : (h.x + kAlign - 1) / kAlign * kAlign; }
  std::ptrdiff_t stride_y() const { return (front() + n.x + h.x + kAlign - 1) / kAlign * kAlign; }
  std::ptrdiff_t stride_z() const { return stride_y() * padded().y; }
  std::size_t count() const { return static_cast<std::size_t>(stride_z() * padded().z); }
  std::ptrdiff_t origin() const { return front() + h.y * stride_y() + h.z * stride_z(); }
  Region interior() const { return {{0, 0, 0}, n}; }
  Region all() const { return {{-h.x, -h.y, -h.z}, {n.x + h.x, n.y + h.y, n.z + h.z}}; }
  std::ptrdiff_t index(int i, int j, int k) const {
    return origin() + i + j * stride_y() + k * stride_z();
  }
};

inline bool operator==(const Layout& a, const Layout& b) { return a.n == b.n && a.h == b.h; }

// A non-owning window on a field, cheap to copy into kernels: v(i, j, k) with local indices.
struct View {
  real* p = nullptr;  // at local index (0, 0, 0)
  std::ptrdiff_t sy = 0, sz = 0;
  SH_HD real& operator()(int i, int j, int k) const { return p[offset(i, j, k)]; }
  // Linear offset of (i, j, k): the same in every field of a layout, so a kernel can compute it
  // once per cell.
  SH_HD std::ptrdiff_t offset(int i, int j, int k) const { return i + j * sy + k * sz; }
};

// One field of a model: a padded array on the backend's memory, and what it means.
class Field {
 public:
  Field(std::string name, Location loc, const Layout& layout, Backend backend,
        std::string units = "1", std::string long_name = "");

  const std::string& name() const { return name_; }
  Location location() const { return loc_; }
  const Layout& layout() const { return layout_; }
  Backend backend() const { return backend_; }
  const std::string& units() const { return units_; }
  const std::string& long_name() const { return long_name_; }

  View view() const {
    return {data_.data() + layout_.origin(), layout_.stride_y(), layout_.stride_z()};
  }
  real* data() const { return data_.data(); }
  std::size_t bytes() const { return data_.bytes(); }

  // Whole padded array to and from the host (tests, IO).
  std::vector<real> to_host() const;
  void from_host(const std::vector<real>& values);
  // Same contents as `other` (same layout required).
  void copy_from(const Field& other);

  // Double buffering: exchanges storage, keeps names.
  void swap_data(Field& other) noexcept { data_.swap(other.data_); }

 private:
  std::string name_;
  Location loc_;
  Layout layout_;
  Backend backend_;
  std::string units_, long_name_;
  Buffer<real> data_;
};

}  // namespace staghorn
