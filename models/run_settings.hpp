#pragma once
// The keys every run has, whatever its model (grid, decomposition, exchange, time, output, log,
// metrics, performance, debug.fault), declared and read in one place: the driver (models/app),
// the models' tests and the benchmarks all take them from here, typed.

#include <optional>
#include <string>

#include "core/grid.hpp"
#include "io/schema.hpp"
#include "io/units.hpp"

namespace staghorn {

// Declares the run keys; `units`: the model's (a dimensional model's grid.units is its unit of
// length).
void add_run_options(io::Schema& schema, const io::UnitSystem& units);

// The `performance.*` keys: where pi and beta of the run's prediction come from.
struct PerformanceSettings {
  double cell_rate = 0;           // pi given (0: from reference_metrics, measured, or unknown)
  std::string reference_metrics;  // a previous run's metrics.jsonl
  double link_bandwidth_GBs = 0;  // beta given (0: probed)
  double sequential_time_s = 0;   // t_seq
  int measure_steps = 0;          // steps timed to measure pi (0: none)
  int fields_exchanged = 0;       // 0: the model's state fields
};

// The `debug.fault.*` keys (tests only): which rank fails on purpose, how and before which step.
struct FaultSettings {
  std::string kind = "none";  // none, nan, exit, stall or stall_write
  int rank = 0;
  long long step = 1;
};

// The run keys, read from a resolved config.
struct RunSettings {
  std::string model;
  std::string backend;
  Grid grid;
  Int3 dims;  // process grid; zeros: chosen automatically
  std::optional<bool> hide_communication;  // unset: on GPUs only (hides())
  bool per_segment = false;  // exchange.pipeline "segments"
  Int3 boundary_width{16, 2, 2};  // the shell computed first while its halo travels
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
  PerformanceSettings performance;
  FaultSettings fault;

  // Whether to hide communication on this backend: as asked, else on GPUs only.
  bool hides(bool on_device) const { return hide_communication.value_or(on_device); }

  // Throws ConfigError for a grid whose coordinates are not all finite (grid.origin + length).
  static RunSettings from(const io::json& config);
};

}  // namespace staghorn
