#include "core/field.hpp"

#include <utility>

#include "core/error.hpp"

namespace staghorn {

Field::Field(std::string name, Location loc, const Layout& layout, Backend backend,
             std::string units, std::string long_name)
    : name_(std::move(name)),
      loc_(loc),
      layout_(layout),
      backend_(backend),
      units_(std::move(units)),
      long_name_(long_name.empty() ? name_ : std::move(long_name)),
      data_(space_of(backend), layout.count()) {
  // Every cell defined, the row padding and the unused halo corners included: no kernel writes
  // those, and a comparison or a copy of the whole array would otherwise see leftover memory.
  zero_bytes(data_.space(), data_.data(), data_.bytes());
}

std::vector<real> Field::to_host() const {
  std::vector<real> out(data_.size());
  copy_bytes(out.data(), data_.data(), data_.bytes());
  return out;
}

void Field::from_host(const std::vector<real>& values) {
  if (values.size() != data_.size())
    throw Error("field " + name_ + ": host array has " + std::to_string(values.size()) +
                " values, the field " + std::to_string(data_.size()));
  copy_bytes(data_.data(), values.data(), data_.bytes());
}

void Field::copy_from(const Field& other) {
  if (!(other.layout_ == layout_)) throw Error("field " + name_ + ": copy between layouts");
  copy_bytes(data_.data(), other.data_.data(), data_.bytes());
}

}  // namespace staghorn
