#pragma once
// The keys of a model's materials section (e.g. stokes.materials): phases painted in order over a
// matrix, each a shape or a set of random inclusions with its own properties, and an optional
// NetCDF file of background properties. Read once into typed options (docs/models/stokes.md,
// "Materials").

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/platform.hpp"
#include "io/schema.hpp"

namespace staghorn::materials {

// Every property a phase may carry; each model uses some of them.
enum class Property { viscosity, density, porosity, permeability };
constexpr int kProperties = 4;
const char* name(Property p);

// How the volume fractions of a cell cut by interfaces are mixed.
enum class Mean { arithmetic, harmonic, geometric };
// viscosity: harmonic; density, porosity: arithmetic; permeability: geometric.
Mean mean_of(Property p);

enum class Shape { sphere, ellipsoid, box, layer, random_inclusions };

// One entry of `phases`, as configured (validated against the grid by Materials).
struct PhaseOptions {
  std::string key;  // "stokes.materials.phases[2]": errors name it
  Shape shape;
  std::optional<std::array<real, 3>> center;     // none: the domain's centre
  std::optional<real> radius;                    // sphere
  std::optional<std::array<real, 3>> semi_axes;  // ellipsoid
  std::optional<std::array<real, 3>> lo, hi;     // box
  std::array<real, 3> rotation;                  // degrees: about z, then y, then x
  std::optional<std::array<real, 3>> normal;     // layer: from <= n . x / |n| <= to
  std::optional<real> from, to;
  std::optional<int> count;                         // random_inclusions
  std::optional<real> radius_min, radius_max, gap;  // gap: between surfaces
  std::uint64_t seed;
  std::array<std::optional<real>, kProperties> values;  // none: the background's
};

struct Options {
  std::string section;               // "stokes.materials"
  std::vector<Property> properties;  // the model's
  std::vector<PhaseOptions> phases;
  std::optional<int> subsamples;                   // none: the model's default
  std::string file;                                // "" : no file
  std::array<std::string, kProperties> variables;  // file variable per property ("" : none)
  bool empty() const { return phases.empty() && file.empty(); }

  // Adds `section`'s keys for a model that knows `properties`.
  static void add_to(io::Schema& schema, const std::string& section,
                     const std::vector<Property>& properties);
  static Options from(const io::json& config, const std::string& section,
                      const std::vector<Property>& properties);
};

}  // namespace staghorn::materials
