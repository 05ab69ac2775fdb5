#include "models/materials/materials.hpp"

#include <filesystem>
#include <sstream>

#include "models/materials/host_fill.hpp"
#include "models/materials/random_inclusions.hpp"

namespace staghorn::materials {
namespace {

// A zero or negative viscosity, porosity or permeability cannot be a material.
bool positive(Property p) { return p != Property::density; }

real size_of(const PhaseOptions& p, const std::vector<Body>& bodies, const Grid& g) {
  if (p.shape == Shape::layer) return *p.to - *p.from;
  real s = 0;
  for (const Body& b : bodies)
    for (int a = 0; a < g.dims(); ++a) s = std::fmax(s, b.half[a]);
  return s;
}

std::string domain_of(const Grid& g) {
  std::ostringstream s;
  for (int a = 0; a < g.dims(); ++a)
    s << (a ? " x " : "") << "[" << g.origin[a] << ", " << g.origin[a] + g.length[a] << "]";
  return s.str();
}

Phase phase_on(const PhaseOptions& p, const Grid& g) {
  Phase ph;
  ph.key = p.key;
  ph.values = p.values;
  if (p.shape == Shape::random_inclusions) {
    ph.bodies = random_inclusions(p, g);
  } else {
    ph.bodies = {body_of(p, g)};
    if (!ph.bodies[0].meets_domain(g))
      throw io::ConfigError(p.key + ": the " + (p.shape == Shape::layer ? "layer" : "shape") +
                            " lies outside the domain " + domain_of(g));
  }
  ph.size = size_of(p, ph.bodies, g);
  return ph;
}

}  // namespace

Materials::Materials(const Options& o, const Grid& g, const std::array<real, kProperties>& matrix,
                     int subsamples)
    : grid_(g), matrix_(matrix), subsamples_(subsamples) {
  for (const PhaseOptions& p : o.phases) phases_.push_back(phase_on(p, g));
  if (o.file.empty()) return;
  if (!std::filesystem::is_regular_file(o.file))
    throw io::ConfigError(o.section + ".file: '" + o.file + "' does not exist or is not a file");
  for (Property p : o.properties) {
    const std::string& var = o.variables[index(p)];
    if (!var.empty())
      file_[index(p)] = std::make_shared<const GridField>(
          o.file, var, o.section + ".variables." + name(p), g, positive(p));
  }
}

real Materials::value(int phase, Property p, const real x[3]) const {
  if (phase >= 0)
    if (const std::optional<real>& v = phases_[phase].values[index(p)]) return *v;
  const std::shared_ptr<const GridField>& f = file_[index(p)];
  return f ? f->at(x) : matrix_[index(p)];
}

void Materials::sample(const real x[3]) const {
  const Grid& g = grid_;
  candidates_.clear();
  for (int p = 0; p < static_cast<int>(phases_.size()); ++p)
    for (const Body& b : phases_[p].bodies)
      if (b.near(g, x)) candidates_.emplace_back(p, &b);
  const int s = subsamples_;
  const int total = s * s * (g.dims() >= 3 ? s : 1);
  points_.resize(total);
  owners_.resize(total);
  values_.resize(total);
  int n = 0;
  for (int c = 0; c < (g.dims() >= 3 ? s : 1); ++c)
    for (int b = 0; b < s; ++b)
      for (int a = 0; a < s; ++a, ++n) {
        const int q[3] = {a, b, c};
        std::array<real, 3>& y = points_[n];
        y = {x[0], x[1], x[2]};
        // The same points as the single stokes.inclusion sampled (bit-identical fields).
        for (int ax = 0; ax < g.dims(); ++ax)
          y[ax] += ((q[ax] + real(0.5)) / s - real(0.5)) * g.spacing(ax);
        owners_[n] = owner(y.data(), candidates_);
      }
}

int Materials::owner(const real y[3], const std::vector<std::pair<int, const Body*>>& c) const {
  for (auto it = c.rbegin(); it != c.rend(); ++it)  // the last phase painted wins
    if (it->second->contains(grid_, y)) return it->first;
  return -1;
}

void Materials::fill(Field& field, const Decomposition& dec, Property p) const {
  set_field(field, dec, [&](const real* x) { return mix(x, p); });
}

}  // namespace staghorn::materials
