#pragma once
#include <string>

#include "core/decomposition.hpp"
#include "core/network.hpp"
#include "core/perf_model.hpp"
#include "io/schema.hpp"
#include "models/model.hpp"
#include "models/run_settings.hpp"

namespace staghorn::app {

// The performance model of one run (core/perf_model.hpp) with its inputs and where they came
// from, so that a reader can judge the prediction.
struct RunPrediction {
  PerfModel model;
  PerfModel::Prediction time;  // per iteration
  double cells_per_rank = 0;
  double halo_bytes = 0;  // Q of the busiest rank per iteration
  int fields_exchanged = 0;
  std::string cell_rate_from;  // "performance.cell_rate", the reference file, or "unknown"
  std::string link_from;       // "performance.link_bandwidth", the probe, or "none"

  io::json to_json() const;
};

// pi from the config (directly or from a previous run's metrics.jsonl), beta from the config or
// probed (collective: every rank calls it), Q from the decomposition. `state_fields`: the
// fields exchanged per iteration unless performance.fields_exchanged says otherwise.
// `config`: the resolved config a measuring copy of the model is built from.
RunPrediction predict_run(const RunSettings& settings, const io::json& config,
                          const Decomposition& dec, const Exec& ex, const Network& net,
                          int state_fields, const ModelInfo& info);

// pi measured on the spot (performance.measure_steps > 0 and no pi given): every rank steps a
// one-rank copy of the model on a grid the size of its own block (MPI_COMM_SELF; a second set of
// fields), one warm-up step and then `steps` timed; cell updates/s per iteration of the slowest
// rank. Collective.
double measure_cell_rate(const ModelInfo& info, const RunSettings& settings, const io::json& config,
                         const Decomposition& dec, const Exec& ex, int steps);

// Adds the prediction to a metrics record: predicted_time_per_iteration_s and
// measured_over_predicted (null when the model has no prediction), and the model's inputs.
void add_prediction(io::json& metrics, const RunPrediction& p, double measured_per_iteration);

// The lines `run --dry-run` prints.
std::string describe(const RunPrediction& p);

}  // namespace staghorn::app
