#pragma once
// The materials of a run on its grid: phases (bodies with properties) painted in order over a
// background (the matrix's constants, or a NetCDF file's fields), and the mixing of a cell cut by
// interfaces from sub-cell samples. Built identically on every rank (no communication); models
// evaluate it on the host over their padded blocks and upload (docs/models/stokes.md,
// "Materials").

#include <cmath>
#include <memory>
#include <optional>
#include <vector>

#include "core/decomposition.hpp"
#include "core/field.hpp"
#include "models/materials/material_file.hpp"
#include "models/materials/options.hpp"
#include "models/materials/shapes.hpp"

namespace staghorn::materials {

struct Phase {
  std::string key;
  std::vector<Body> bodies;
  std::array<std::optional<real>, kProperties> values;  // none: the background's
  real size = 0;  // its largest radius, semi-axis, half size or thickness (stress scales)
};

class Materials {
 public:
  // `matrix`: the background's constant per property (where no file variable replaces it);
  // `subsamples`: points per cell and axis. Checks the geometry against the grid, places random
  // inclusions and reads the file: ConfigError naming the key.
  Materials(const Options& o, const Grid& g, const std::array<real, kProperties>& matrix,
            int subsamples);

  const std::vector<Phase>& phases() const { return phases_; }
  bool from_file(Property p) const { return file_[index(p)] != nullptr; }
  // The file's smallest and largest value of p (from_file(p)).
  real file_min(Property p) const { return file_[index(p)]->min(); }
  real file_max(Property p) const { return file_[index(p)]->max(); }
  // Property p of source `phase` at x: its own value, else the background's (phase -1).
  real value(int phase, Property p, const real x[3]) const;

  // The cell around x (spacing of grid g) mixed with `mean` over its samples, `value(phase, y)`
  // giving a sample's value (phase -1: the background). Samples of one source with one value
  // count as its volume fraction f: the harmonic mean is 1 / (sum f / v), the arithmetic sum f v,
  // the geometric exp(sum f log v), phases in order, the background last with 1 - (their sum).
  template <class Value>
  real mix(const real x[3], Mean mean, const Value& value) const;
  // Property p with its own mean.
  real mix(const real x[3], Property p) const {
    return mix(x, mean_of(p), [&](int phase, const real* y) { return value(phase, p, y); });
  }
  // Fills every point (ghosts included) of a cell-centred field with mix(x, p).
  void fill(Field& field, const Decomposition& dec, Property p) const;

 private:
  static int index(Property p) { return static_cast<int>(p); }
  // The owner (phase index, -1: background) of each sample point of the cell around x.
  void sample(const real x[3]) const;
  int owner(const real y[3], const std::vector<std::pair<int, const Body*>>& candidates) const;

  Grid grid_;
  std::vector<Phase> phases_;
  std::array<real, kProperties> matrix_;
  std::array<std::shared_ptr<const GridField>, kProperties> file_;
  int subsamples_;
  // Scratch of sample(): one cell at a time, on the host.
  mutable std::vector<std::array<real, 3>> points_;
  mutable std::vector<int> owners_;
  mutable std::vector<real> values_;
  mutable std::vector<std::pair<int, const Body*>> candidates_;
};

template <class Value>
real Materials::mix(const real x[3], Mean mean, const Value& value) const {
  sample(x);
  const int total = static_cast<int>(points_.size());
  for (int s = 0; s < total; ++s) values_[s] = value(owners_[s], points_[s].data());
  auto term = [mean](real f, real v) {
    return mean == Mean::harmonic ? f / v : (mean == Mean::geometric ? f * std::log(v) : f * v);
  };
  real sum = 0, fractions = 0;
  // One source's samples: by its fraction when they share one value, else each by 1 / total.
  auto add = [&](int source) {
    int count = 0;
    bool uniform = true;
    real first = 0;
    for (int s = 0; s < total; ++s) {
      if (owners_[s] != source) continue;
      if (count++ == 0) first = values_[s];
      uniform = uniform && values_[s] == first;
    }
    if (count == 0) return;
    if (!uniform) {
      fractions += real(count) / total;
      for (int s = 0; s < total; ++s)
        if (owners_[s] == source) sum += term(real(1) / total, values_[s]);
      return;
    }
    const real f = source >= 0 ? real(count) / total : 1 - fractions;
    sum += term(f, first);
    fractions += f;
  };
  for (int p = 0; p < static_cast<int>(phases_.size()); ++p) add(p);
  add(-1);
  return mean == Mean::harmonic ? 1 / sum : (mean == Mean::geometric ? std::exp(sum) : sum);
}

}  // namespace staghorn::materials
