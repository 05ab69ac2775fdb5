// The materials keys beside their reader.
#include "models/materials/options.hpp"

#include <cmath>

#include "models/materials/random_inclusions.hpp"

namespace staghorn::materials {
namespace {

const char* const kShapes[] = {"sphere", "ellipsoid", "box", "layer", "random_inclusions"};
// 2-D names of the same shapes, for readability.
const char* const kAliases[][2] = {{"circle", "sphere"}, {"ellipse", "ellipsoid"}};

// The property as the key descriptions name it (its key name, more precisely for viscosity).
std::string described(Property p) { return p == Property::viscosity ? "shear viscosity" : name(p); }

// Every property but density is positive (a zero viscosity or permeability breaks the solver).
bool positive(Property p) { return p != Property::density; }

io::Schema phase_schema(const std::vector<Property>& properties) {
  using io::Type;
  io::Schema s;
  s.add("shape", Type::string, "sphere",
        "sphere (a disc in 2-D; alias circle), ellipsoid (alias ellipse), box, layer (between "
        "two parallel planes) or random_inclusions (count non-overlapping spheres)")
      .one_of({"sphere", "circle", "ellipsoid", "ellipse", "box", "layer", "random_inclusions"});
  s.add("center", Type::number3, nullptr,
        "sphere, ellipsoid: centre (null: the domain's centre; z ignored in 2-D)");
  s.add("radius", Type::number, nullptr, "sphere: radius").above(0);
  s.add("semi_axes", Type::number3, nullptr,
        "ellipsoid: semi-axes along its own x, y, z axes (before rotation)")
      .above(0);
  s.add("lo", Type::number3, nullptr, "box: lower corner (before rotation about its centre)");
  s.add("hi", Type::number3, nullptr, "box: upper corner");
  s.add("rotation", Type::number3, io::json::array({0.0, 0.0, 0.0}),
        "ellipsoid, box: rotation about the centre in degrees, R = Rz(a) Ry(b) Rx(c) for [a, b, "
        "c] (2-D: a, counter-clockwise from x; b and c must be 0)");
  s.add("normal", Type::number3, nullptr, "layer: normal of its planes (need not be unit length)");
  s.add("from", Type::number, nullptr,
        "layer: the points x with from <= n . x <= to, n the unit normal");
  s.add("to", Type::number, nullptr, "layer: see from (> from)");
  s.add("count", Type::integer, nullptr,
        "random_inclusions: number of spheres (at most " + std::to_string(kMaxInclusions) + ")")
      .at_least(1)
      .at_most(kMaxInclusions);
  s.add("radius_min", Type::number, nullptr,
        "random_inclusions: radii drawn uniformly in [radius_min, radius_max]")
      .above(0);
  s.add("radius_max", Type::number, nullptr, "random_inclusions: see radius_min (null: radius_min)")
      .above(0);
  s.add("gap", Type::number, nullptr,
        "random_inclusions: least distance between two spheres' surfaces (nearest image on "
        "periodic axes; null: 0)")
      .at_least(0);
  s.add("seed", Type::integer, 1,
        "random_inclusions: seed of the placement (std::mt19937_64: the same bodies on every "
        "machine, rank and rank count)")
      .at_least(0)
      .at_most(io::kLargestExactInteger);
  for (Property p : properties) {
    io::Option& o = s.add(name(p), Type::number, nullptr,
                          "The phase's " + described(p) + " (null: the background's)");
    if (positive(p)) o.above(0);
  }
  return s;
}

std::optional<real> number(const io::json& v) {
  if (v.is_null()) return std::nullopt;
  return v.get<real>();
}

std::optional<std::array<real, 3>> vector(const io::json& v) {
  if (v.is_null()) return std::nullopt;
  return std::array<real, 3>{v[0].get<real>(), v[1].get<real>(), v[2].get<real>()};
}

Shape shape_of(std::string name) {
  for (const auto& a : kAliases)
    if (name == a[0]) name = a[1];
  for (int s = 0; s < 5; ++s)
    if (name == kShapes[s]) return static_cast<Shape>(s);
  throw io::ConfigError("shape: unknown shape " + name);
}

// The keys that only some shapes read: one given to another shape is an error, not ignored.
void refuse_foreign_keys(const io::json& e, const PhaseOptions& p) {
  static const std::vector<std::pair<const char*, std::vector<Shape>>> owners = {
      {"center", {Shape::sphere, Shape::ellipsoid}},
      {"radius", {Shape::sphere}},
      {"semi_axes", {Shape::ellipsoid}},
      {"lo", {Shape::box}},
      {"hi", {Shape::box}},
      {"normal", {Shape::layer}},
      {"from", {Shape::layer}},
      {"to", {Shape::layer}},
      {"count", {Shape::random_inclusions}},
      {"radius_min", {Shape::random_inclusions}},
      {"radius_max", {Shape::random_inclusions}},
      {"gap", {Shape::random_inclusions}}};
  for (const auto& [key, shapes] : owners) {
    if (e[key].is_null()) continue;
    bool used = false;
    for (Shape s : shapes) used = used || s == p.shape;
    if (!used)
      throw io::ConfigError(p.key + "." + key + ": not a key of shape " +
                            e["shape"].get<std::string>());
  }
}

// The keys a shape needs.
void require_keys(const io::json& e, const PhaseOptions& p) {
  std::vector<const char*> need;
  switch (p.shape) {
    case Shape::sphere:
      need = {"radius"};
      break;
    case Shape::ellipsoid:
      need = {"semi_axes"};
      break;
    case Shape::box:
      need = {"lo", "hi"};
      break;
    case Shape::layer:
      need = {"normal", "from", "to"};
      break;
    case Shape::random_inclusions:
      need = {"count", "radius_min"};
      break;
  }
  for (const char* key : need)
    if (e[key].is_null())
      throw io::ConfigError(p.key + "." + key + ": needed by shape " +
                            e["shape"].get<std::string>());
}

PhaseOptions phase_from(const io::json& e, const std::string& key,
                        const std::vector<Property>& properties) {
  PhaseOptions p;
  p.key = key;
  p.shape = shape_of(e["shape"].get<std::string>());
  refuse_foreign_keys(e, p);
  require_keys(e, p);
  p.center = vector(e["center"]);
  p.radius = number(e["radius"]);
  p.semi_axes = vector(e["semi_axes"]);
  p.lo = vector(e["lo"]);
  p.hi = vector(e["hi"]);
  p.rotation = *vector(e["rotation"]);
  p.normal = vector(e["normal"]);
  p.from = number(e["from"]);
  p.to = number(e["to"]);
  if (!e["count"].is_null()) p.count = e["count"].get<int>();
  p.radius_min = number(e["radius_min"]);
  p.radius_max = number(e["radius_max"]);
  p.gap = number(e["gap"]);
  p.seed = e["seed"].get<std::uint64_t>();
  for (Property q : properties) p.values[static_cast<int>(q)] = number(e[name(q)]);
  return p;
}

}  // namespace

const char* name(Property p) {
  switch (p) {
    case Property::viscosity:
      return "viscosity";
    case Property::density:
      return "density";
    case Property::porosity:
      return "porosity";
    case Property::permeability:
      return "permeability";
  }
  return "?";
}

Mean mean_of(Property p) {
  switch (p) {
    case Property::viscosity:
      return Mean::harmonic;
    case Property::permeability:
      return Mean::geometric;
    default:
      return Mean::arithmetic;
  }
}

void Options::add_to(io::Schema& s, const std::string& section,
                     const std::vector<Property>& properties) {
  using io::Type;
  s.add(section + ".phases", Type::list, io::json::array(),
        "Phases painted in order over the matrix (a later one over an earlier one where they "
        "overlap), each a shape or random inclusions with its properties (docs/models/stokes.md, "
        "\"Materials\")")
      .of(phase_schema(properties));
  s.add(section + ".subsamples", Type::integer, nullptr,
        "Sample points per cell and axis that measure the phases' volume fractions in cells cut "
        "by interfaces (viscosity mixed harmonically, density and porosity arithmetically, "
        "permeability geometrically; null: the model's default)")
      .at_least(1)
      .at_most(64);
  s.add(section + ".file", Type::string, "",
        "NetCDF file of background properties on a rectilinear grid (1-D coordinate variables "
        "named by the dimensions, ascending or descending, covering the cell centres), "
        "interpolated linearly to the sample points; relative to the config file's directory "
        "(\"\": none)")
      .relative_to_config();
  for (Property p : properties)
    s.add(section + ".variables." + name(p), Type::string, "",
          std::string("Variable of the file holding the background ") + described(p) +
              " (\"\": the matrix's constant)");
}

Options Options::from(const io::json& c, const std::string& section,
                      const std::vector<Property>& properties) {
  Options o;
  o.section = section;
  o.properties = properties;
  const io::json& phases = io::at_path(c, section + ".phases");
  for (std::size_t i = 0; i < phases.size(); ++i)
    o.phases.push_back(
        phase_from(phases[i], section + ".phases[" + std::to_string(i) + "]", properties));
  if (const io::json& v = io::at_path(c, section + ".subsamples"); !v.is_null())
    o.subsamples = v.get<int>();
  o.file = io::at_path(c, section + ".file").get<std::string>();
  bool any = false;
  for (Property p : properties) {
    std::string& v = o.variables[static_cast<int>(p)];
    v = io::at_path(c, section + ".variables." + name(p)).get<std::string>();
    any = any || !v.empty();
  }
  if (!o.file.empty() && !any)
    throw io::ConfigError(section + ".variables: " + section +
                          ".file is set but no property is read from it");
  if (o.file.empty() && any)
    throw io::ConfigError(section + ".file: variables are named but no file is given");
  return o;
}

}  // namespace staghorn::materials
