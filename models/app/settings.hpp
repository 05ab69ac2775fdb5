#pragma once
#include <string>

#include "core/grid.hpp"
#include "io/schema.hpp"
#include "io/units.hpp"

namespace staghorn::app {

// The keys every run has, whatever its model: backend, grid, decomposition, time, output, log;
// `units`: the model's (a dimensional model's grid.units is its unit of length).
void add_run_options(io::Schema& schema, const io::UnitSystem& units);

// Those keys, read from a resolved config.
struct RunSettings {
  std::string model;
  std::string backend;
  Grid grid;
  Int3 dims;  // process grid; zeros: chosen automatically
  double dt = 0;
  long long steps = 0;
  long long output_every = 0;
  long long diagnostics_every = 1;
  bool output_initial = true;
  bool output_final = true;
  std::string output_dir;
  std::string prefix;
  double log_interval = 0;
  std::string restart;
  std::string transport, nccl_library;
  double timeout_s = 0;   // how long a rank waits on its peers; 0: forever
  double walltime_s = 0;  // run.walltime; 0: no limit
  bool measure_copy_bandwidth = true;
  double copy_bandwidth_max_age_s =
      7 * 86400.0;  // a kept CPU reference younger than this is reused
  bool phase_timing = true;

  // Throws ConfigError for a grid whose coordinates are not all finite (grid.origin + length).
  static RunSettings from(const io::json& config);
};

}  // namespace staghorn::app
