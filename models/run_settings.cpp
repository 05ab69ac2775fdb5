#include "models/run_settings.hpp"

#include <cmath>

#include "core/network.hpp"
#include "models/output_prefix.hpp"

namespace staghorn {
namespace {

// Every coordinate of the grid (origin to origin + length, in steps of length / n) must be a
// finite number, and the spacing positive: snapshots and the index write them.
void check_coordinates(const Grid& g) {
  for (int a = 0; a < 3; ++a) {
    const std::string axis = "[" + std::to_string(a) + "]";
    if (!std::isfinite(g.origin[a] + g.length[a]))
      throw io::ConfigError("grid.origin" + axis + ": " + io::json(g.origin[a]).dump() +
                            " + grid.length" + axis + " " + io::json(g.length[a]).dump() +
                            " is beyond the largest double: every coordinate must be finite");
    if (!(g.spacing(a) > 0))
      throw io::ConfigError("grid.length" + axis + ": " + io::json(g.length[a]).dump() + " over " +
                            std::to_string(g.n[a]) + " cells is a spacing of 0");
  }
}


// Test only: debug.fault (the driver's FaultSpec, models/app/fault.hpp).
void add_fault_options(io::Schema& s) {
  using io::Type;
  s.add("debug.fault.kind", Type::string, "none",
        "Test only: make one rank fail on purpose before step debug.fault.step: nan (a NaN in "
        "its first state field), exit (the rank process is killed, as a lost peer), stall "
        "(the rank stops answering but lives on, as a hung device would leave it) or "
        "stall_write (the same before the step's snapshot is written, while its peers write)")
      .one_of({"none", "nan", "exit", "stall", "stall_write"});
  s.add("debug.fault.rank", Type::integer, 0, "Test only: the rank that fails").at_least(0);
  s.add("debug.fault.step", Type::integer, 1, "Test only: the step before which it fails")
      .at_least(1);
}

void add_performance_options(io::Schema& s) {
  using io::Type;
  s.add("performance.cell_rate", Type::number, 0.0,
        "pi of the performance model: cell updates per second of one device (0: from "
        "performance.reference_metrics)")
      .at_least(0);
  s.add("performance.reference_metrics", Type::string, "",
        "A previous run's metrics.jsonl: its last line of this model gives pi (cell updates/s "
        "per rank); empty and no cell_rate: no prediction");
  s.add("performance.link_bandwidth", Type::number, 0.0,
        "beta of the performance model in GB/s per direction (0: measured by a short probe at "
        "the start, halo-sized messages between rank pairs or the GPU peer copy)")
      .at_least(0);
  s.add("performance.sequential_time", Type::number, 0.0,
        "t_seq of the performance model: seconds per iteration no rank count shortens")
      .at_least(0);
  s.add("performance.measure_steps", Type::integer, 0,
        "Without a given pi, measure it at the start: each rank steps a one-rank copy of the model "
        "on its own block for one warm-up and this many timed steps (0: do not; pi unknown)")
      .at_least(0);
  s.add("performance.fields_exchanged", Type::integer, 0,
        "Fields whose halos travel per iteration (0: the model's state fields, an upper bound for "
        "models that exchange only some of them)")
      .at_least(0);
}

}  // namespace

void add_run_options(io::Schema& s, const io::UnitSystem& units) {
  using io::Type;
  s.add("model", Type::string, "diffusion", "The model to run (staghorn describe lists them)");
  s.add("backend", Type::string, "auto",
        "Where kernels run: cpu (OpenMP), cuda, or auto (a GPU when one is visible)")
      .one_of({"auto", "cpu", "cuda"});
  s.add(
       "grid.n", Type::int3, io::json::array({64, 64, 1}),
       "Global cells (nx, ny, nz); nz = 1 is a 2-D run (at most 2^30 per axis: indices are 32-bit)")
      .at_least(1)
      .at_most(1 << 30);
  s.add("grid.length", Type::number3, io::json::array({1.0, 1.0, 1.0}),
        "Domain size along each axis")
      .above(0);
  s.add("grid.origin", Type::number3, io::json::array({0.0, 0.0, 0.0}),
        "Coordinates of the domain's low corner");
  s.add("grid.periodic", Type::bool3, io::json::array({false, false, false}),
        "Periodic axes; the others are bounded and take the model's boundary conditions");
  // A dimensional model computes in its SI units: another name would mislabel every output.
  if (units.dimensional())
    s.add("grid.units", Type::string, units.length,
          "Units of length written with the coordinates: the model computes in SI units, "
          "lengths in " +
              units.length)
        .one_of({units.length});
  else
    s.add("grid.units", Type::string, "",
          "Units of length written with the coordinates (empty: the model's own, 1 for a scaled "
          "model)");
  s.add("decomposition.dims", Type::int3, io::json::array({0, 0, 0}),
        "Process grid (px, py, pz); all zeros: the one whose busiest rank has the fewest cells to "
        "compute and receive. Any split works: blocks differ by at most one cell per axis")
      .at_least(0);
  s.add("exchange.hide_communication", Type::boolean, nullptr,
        "Compute the boundary shell first on a high-priority stream and move its halo while the "
        "inner region computes (results are identical either way; only where the grid is split "
        "over ranks). Unset: on GPUs, off on the CPU, where the shell computed apart costs more "
        "than the messages it hides (docs/exchange.md)");
  s.add("exchange.pipeline", Type::string, "shell",
        "When the halo segments leave while communication is hidden: shell (all of them once "
        "the whole boundary shell is computed) or segments (in waves, each as soon as the slabs "
        "of the shell it reads are computed; see docs/exchange.md)")
      .one_of({"shell", "segments"});
  s.add("exchange.boundary_width", Type::int3, io::json::array({16, 2, 2}),
        "Width of the boundary shell per axis, in cells (at least the halo width)")
      .at_least(1);
  s.add("exchange.transport", Type::string, "auto",
        "How halos travel between ranks: mpi (host memory; staged through pinned buffers on "
        "GPUs), mpi-device (device buffers to a CUDA-aware MPI), nccl (device to device on the "
        "boundary stream, libnccl.so.2 loaded at run time), ipc (CUDA IPC: peer copies by the "
        "copy engines into the neighbours' buffers; every rank on one node) or auto (see "
        "docs/exchange.md)")
      .one_of(transport_choices());
  s.add("exchange.timeout_s", Type::number, 600.0,
        "Seconds a rank waits on its peers (halo messages, reductions) before it ends the job "
        "as a stalled or lost peer, with exit code 5; 0 waits forever")
      .at_least(0);
  s.add("exchange.nccl_library", Type::string, "",
        "Path of libnccl.so.2 (empty: the loader's search path, then the CUDA toolkit's lib "
        "directory)");
  s.add("time.dt", Type::number, 1e-3, "Physical time step").above(0);
  s.add("time.steps", Type::integer, 10, "Number of time steps (to reach, when restarting)")
      .at_least(0);
  s.add("output.dir", Type::string, "staghorn-output",
        "Directory for snapshots, diagnostics.csv, diagnostics.nc and metrics.jsonl (--output "
        "overrides)");
  s.add("output.every", Type::integer, 0,
        "Write a snapshot every this many steps (0: only the last step)")
      .at_least(0);
  s.add("output.initial", Type::boolean, true, "Also write the initial state (step 0)");
  s.add("output.final", Type::boolean, true,
        "Write the last step's snapshot even when output.every does not fall on it (false: "
        "timing runs, e.g. campaigns, that need no fields)");
  s.add("output.prefix", Type::string, "snapshot",
        "Snapshot file names: PREFIX_STEP.nc (letters, digits, '.', '_', '+' and '-', at most "
        "200 bytes)")
      .checked_by([](const io::json& v) { check_prefix(v.get<std::string>()); })
      .matching(kPrefixPattern);
  s.add("output.diagnostics_every", Type::integer, 1,
        "Compute the model's diagnostics (urms, mass, ...) at every step that is a multiple of "
        "this, and at the start, and append them to diagnostics.csv and diagnostics.nc (netCDF "
        "time series); other steps have no row")
      .at_least(1);
  s.add("log.interval", Type::number, 2.0,
        "Seconds between progress lines (0: every step); an implicit solve longer than this "
        "reports its iterations and residual within the step")
      .at_least(0);
  s.add("run.walltime", Type::number, 0.0,
        "Seconds of wall time the run may take (0: no limit): when another step would overrun it, "
        "every rank stops, writes a restart snapshot and the run exits with code 6, as on SIGTERM "
        "(the implicit models also within a solve once it is spent, abandoning that step)")
      .at_least(0);
  s.add("restart", Type::string, "",
        "Snapshot to continue from (its step and time; time.steps is the step to reach)");
  s.add("metrics.phase_timing", Type::boolean, true,
        "Time the phases of the halo exchanges (compute, pack, transfer, unpack, wait) with events "
        "on the streams, reported per iteration in the metrics line");
  s.add("metrics.copy_bandwidth", Type::boolean, true,
        "Measure the copy bandwidth at the end of the run, to report T_eff as a fraction of it");
  s.add("metrics.copy_bandwidth_max_age_days", Type::number, 7.0,
        "CPU: reuse the copy bandwidth an earlier run measured on this machine with the same "
        "CPUs, threads and ranks per node while younger than this (kept in $STAGHORN_CACHE_DIR, "
        "$XDG_CACHE_HOME/staghorn or ~/.cache/staghorn); 0 measures it every run")
      .at_least(0);
  add_fault_options(s);
  add_performance_options(s);
}

RunSettings RunSettings::from(const io::json& c) {
  using io::at_path;
  RunSettings r;
  r.model = at_path(c, "model").get<std::string>();
  r.backend = at_path(c, "backend").get<std::string>();
  for (int a = 0; a < 3; ++a) {
    r.grid.n[a] = at_path(c, "grid.n")[a].get<int>();
    r.grid.length[a] = at_path(c, "grid.length")[a].get<double>();
    r.grid.origin[a] = at_path(c, "grid.origin")[a].get<double>();
    r.grid.periodic[a] = at_path(c, "grid.periodic")[a].get<bool>();
    r.dims[a] = at_path(c, "decomposition.dims")[a].get<int>();
    r.boundary_width[a] = at_path(c, "exchange.boundary_width")[a].get<int>();
  }
  if (const io::json& hide = at_path(c, "exchange.hide_communication"); !hide.is_null())
    r.hide_communication = hide.get<bool>();
  r.per_segment = at_path(c, "exchange.pipeline").get<std::string>() == "segments";
  r.grid.units = at_path(c, "grid.units").get<std::string>();
  check_coordinates(r.grid);
  r.dt = at_path(c, "time.dt").get<double>();
  r.steps = at_path(c, "time.steps").get<long long>();
  r.output_dir = at_path(c, "output.dir").get<std::string>();
  r.output_every = at_path(c, "output.every").get<long long>();
  r.output_initial = at_path(c, "output.initial").get<bool>();
  r.output_final = at_path(c, "output.final").get<bool>();
  r.prefix = at_path(c, "output.prefix").get<std::string>();
  r.diagnostics_every = at_path(c, "output.diagnostics_every").get<long long>();
  r.log_interval = at_path(c, "log.interval").get<double>();
  r.restart = at_path(c, "restart").get<std::string>();
  r.measure_copy_bandwidth = at_path(c, "metrics.copy_bandwidth").get<bool>();
  r.copy_bandwidth_max_age_s =
      86400.0 * at_path(c, "metrics.copy_bandwidth_max_age_days").get<double>();
  r.phase_timing = at_path(c, "metrics.phase_timing").get<bool>();
  r.transport = at_path(c, "exchange.transport").get<std::string>();
  r.nccl_library = at_path(c, "exchange.nccl_library").get<std::string>();
  r.timeout_s = at_path(c, "exchange.timeout_s").get<double>();
  r.walltime_s = at_path(c, "run.walltime").get<double>();
  PerformanceSettings& p = r.performance;
  p.cell_rate = at_path(c, "performance.cell_rate").get<double>();
  p.reference_metrics = at_path(c, "performance.reference_metrics").get<std::string>();
  p.link_bandwidth_GBs = at_path(c, "performance.link_bandwidth").get<double>();
  p.sequential_time_s = at_path(c, "performance.sequential_time").get<double>();
  p.measure_steps = at_path(c, "performance.measure_steps").get<int>();
  p.fields_exchanged = at_path(c, "performance.fields_exchanged").get<int>();
  r.fault.kind = at_path(c, "debug.fault.kind").get<std::string>();
  r.fault.rank = at_path(c, "debug.fault.rank").get<int>();
  r.fault.step = at_path(c, "debug.fault.step").get<long long>();
  return r;
}

}  // namespace staghorn
