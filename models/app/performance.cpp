#include "models/app/performance.hpp"

#include <cstdio>
#include <fstream>
#include <memory>

#include "core/timer.hpp"

namespace staghorn::app {

namespace {

// pi as cell updates/s per rank of the last line of `model` in a metrics.jsonl.
double rate_from_metrics(const std::string& path, const std::string& model) {
  std::ifstream in(path);
  if (!in) throw io::ConfigError("performance.reference_metrics: cannot read '" + path + "'");
  double rate = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const io::json m = io::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!m.is_object() || m.value("model", "") != model) continue;
    const double r = m.value("cell_updates_per_s", 0.0) / std::max(m.value("ranks", 1), 1);
    if (r > 0) rate = r;
  }
  if (rate <= 0)
    throw io::ConfigError("performance.reference_metrics: no metrics line of model " + model +
                          " with a cell update rate in '" + path + "'");
  return rate;
}

}  // namespace

double measure_cell_rate(const ModelInfo& info, const RunSettings& settings, const io::json& config,
                         const Decomposition& dec, const Exec& ex, int steps) {
  // The block of this rank as a whole grid of its own: same spacing, same periodic axes.
  Grid g = dec.grid();
  for (int a = 0; a < 3; ++a) {
    const double h = g.spacing(a);
    g.origin[a] += dec.offset()[a] * h;
    g.n[a] = dec.local_cells()[a];
    g.length[a] = g.n[a] * h;
  }
  const Comm self(MPI_COMM_SELF);
  const Decomposition alone(g, self, {1, 1, 1}, info.halo);
  Exec e = ex;
  e.use_network(std::make_shared<Network>(self, e, settings.transport, settings.nccl_library,
                                          settings.per_segment));
  std::unique_ptr<Model> model = info.create({config, settings, alone, e});
  model->refresh();
  const real dt = static_cast<real>(settings.dt);
  model->advance(dt);  // warm-up: first launches, allocations, mappings
  e.synchronize();
  long long iterations = 0;
  Timer t;
  for (int s = 0; s < steps; ++s) iterations += model->advance(dt).iterations;
  e.synchronize();
  const double per_iteration = iterations > 0 ? t.seconds() / iterations : 0.0;
  const double slowest = dec.comm().max(per_iteration);
  return slowest > 0 ? static_cast<double>(g.cells()) / slowest : 0.0;
}

RunPrediction predict_run(const RunSettings& settings, const io::json& config,
                          const Decomposition& dec, const Exec& ex, const Network& net,
                          int state_fields, const ModelInfo& info) {
  const PerformanceSettings& keys = settings.performance;
  RunPrediction p;
  const std::string& reference = keys.reference_metrics;
  p.model.cell_rate = keys.cell_rate;
  p.cell_rate_from = "performance.cell_rate";
  if (p.model.cell_rate <= 0 && !reference.empty()) {
    p.model.cell_rate = rate_from_metrics(reference, settings.model);
    p.cell_rate_from = reference;
  }
  if (p.model.cell_rate <= 0 && keys.measure_steps > 0) {
    p.model.cell_rate = measure_cell_rate(info, settings, config, dec, ex, keys.measure_steps);
    p.cell_rate_from = "measured (performance.measure_steps)";
  }
  if (p.model.cell_rate <= 0) p.cell_rate_from = "unknown";
  p.model.sequential_s = keys.sequential_time_s;
  p.model.overlap = settings.hides(ex.on_device());

  p.fields_exchanged = keys.fields_exchanged > 0 ? keys.fields_exchanged : state_fields;
  // The busiest rank's: blocks of an uneven split differ by a cell per axis.
  p.cells_per_rank =
      static_cast<double>(Decomposition::largest_block(dec.grid(), dec.dims()).volume());
  p.halo_bytes = halo_bytes(dec.grid(), dec.dims(), dec.halo(), p.fields_exchanged);

  const double given = keys.link_bandwidth_GBs;
  const int ranks = dec.comm().size();
  if (ranks < 2) {
    p.link_from = "none";
  } else if (given > 0) {
    p.model.link_bandwidth = given * 1e9, p.link_from = "performance.link_bandwidth";
  } else {
    // The whole halo in one message per pair: the exchange splits it over up to 26 neighbours,
    // so the probe sees less latency than the exchange does (small blocks: beta optimistic).
    const bool device_link = ex.on_device() && net.kind() != TransportKind::mpi;
    p.model.link_bandwidth = probe_link_bandwidth(dec.comm(), p.halo_bytes, device_link);
    p.link_from = device_link ? "probe (GPU peer copy or MPI pairs)" : "probe (MPI pairs)";
  }
  p.time = p.model.predict(p.cells_per_rank, p.halo_bytes, ranks);
  return p;
}

io::json RunPrediction::to_json() const {
  io::json j;
  j["cell_rate"] = model.cell_rate;
  j["cell_rate_from"] = cell_rate_from;
  j["link_bandwidth_GBs"] = model.link_bandwidth / 1e9;
  j["link_from"] = link_from;
  j["cells_per_rank"] = cells_per_rank;
  j["halo_bytes"] = halo_bytes;
  j["fields_exchanged"] = fields_exchanged;
  j["overlap"] = model.overlap;
  j["t_compute_s"] = time.compute_s;
  j["t_comm_s"] = time.comm_s;
  j["t_seq_s"] = time.sequential_s;
  return j;
}

void add_prediction(io::json& m, const RunPrediction& p, double measured) {
  m["predicted_time_per_iteration_s"] = p.time.known ? io::json(p.time.total_s) : io::json();
  m["measured_over_predicted"] =
      p.time.known && measured > 0 ? io::json(measured / p.time.total_s) : io::json();
  m["performance_model"] = p.to_json();
}

std::string describe(const RunPrediction& p) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "performance model: t = %s(W/pi, Q/beta) + t_seq, W = %.0f cells per rank, "
                "pi = %.4g cells/s (%s), Q = %.0f bytes (%d field(s)), beta = %.4g GB/s (%s)\n",
                p.model.overlap ? "max" : "sum", p.cells_per_rank, p.model.cell_rate,
                p.cell_rate_from.c_str(), p.halo_bytes, p.fields_exchanged,
                p.model.link_bandwidth / 1e9, p.link_from.c_str());
  std::string out = buf;
  if (!p.time.known)
    return out +
           "predicted time per iteration: unknown (no pi: set "
           "performance.cell_rate or performance.reference_metrics)\n";
  std::snprintf(buf, sizeof buf,
                "predicted time per iteration: %.6g s (t_compute %.6g s, t_comm %.6g s, t_seq "
                "%.6g s)\n",
                p.time.total_s, p.time.compute_s, p.time.comm_s, p.time.sequential_s);
  return out + buf;
}

}  // namespace staghorn::app
