#include "models/app/run.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "core/bandwidth.hpp"
#include "core/bounded_message.hpp"
#include "core/decomposition.hpp"
#include "core/finite.hpp"
#include "core/host_stream.hpp"
#include "core/memory.hpp"
#include "core/network.hpp"
#include "core/thread_governor.hpp"
#include "core/threads.hpp"
#include "io/config.hpp"
#include "io/json_text.hpp"
#include "io/progress.hpp"
#include "io/records.hpp"
#include "io/snapshot.hpp"
#include "io/xdmf.hpp"
#include "models/app/diagnostics_files.hpp"
#include "models/app/fault.hpp"
#include "models/app/inapplicable.hpp"
#include "models/app/output_dir.hpp"
#include "models/app/performance.hpp"
#include "models/app/restart.hpp"
#include "models/app/stop.hpp"
#include "models/app/stream_cache.hpp"
#include "models/app/watchdog.hpp"
#include "models/registry.hpp"
#include "models/run_settings.hpp"
#include "solvers/time_loop.hpp"

namespace staghorn::app {
namespace {

namespace fs = std::filesystem;

// Everything a run needs, checked, before anything is written.
struct Setup {
  io::json config;
  std::vector<std::string> warnings;  // keys the user set that cannot apply
  RunSettings settings;
  const ModelInfo* model = nullptr;
  Exec exec;
  std::unique_ptr<Decomposition> dec;
  FaultSpec fault;
  ThreadPlan threads;  // OpenMP threads per rank against the node's cores
  int node_rank = 0;   // this rank among the node's
  int node_ranks = 1;
};

void warn(const std::vector<std::string>& lines) {
  for (const std::string& line : lines)
    std::cerr << "staghorn: warning: " << bounded_message(line) << "\n";
}

Exec make_exec(const std::string& backend, int node_rank) {
  if (parse_backend(backend) == Backend::cpu) return Exec::cpu();
  return Exec::cuda(node_rank % cuda_device_count());
}

// Runs `f` (which must not communicate) on every rank; if it throws anywhere, every rank throws
// StartFailed.
template <class F>
void together(const Comm& comm, F&& f) {
  std::string error;
  int code = 0;
  try {
    f();
  } catch (const PeerTimeout&) {
    throw;  // a peer is not answering: agreeing with it would wait for ever (main aborts the job)
  } catch (const NumericalError& e) {
    error = std::string("numerical failure: ") + e.what(), code = 3;
  } catch (const OutputWriteError& e) {
    error = e.what(), code = 4;
  } catch (const Error& e) {
    error = e.what(), code = 1;
  } catch (const std::exception& e) {
    error = std::string("internal error: ") + e.what(), code = 4;
  }
  const int first = comm.first_failure(code != 0);
  if (first < 0) return;
  if (code != 0) throw StartFailed{error, code, comm.rank() == first};
  throw StartFailed{"rank " + std::to_string(first) + " could not start (see its message)", 1,
                    comm.root()};
}

std::string bytes_text(double b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f bytes (%.3g GiB)", b, b / (1u << 30));
  return buf;
}

// The memory one rank's arrays take (padded blocks, computed in double: no count can wrap) against
// what this rank can have: the node's available host memory shared by its ranks, or its device's
// free memory shared by the ranks on that device. Throws ConfigError naming grid.n.
void check_memory(const Setup& s, int node_ranks) {
  const Int3 n = s.dec->local_cells();
  double cells = 1;
  for (int a = 0; a < 3; ++a) {
    const double h = s.settings.grid.active(a) ? s.model->halo : 0;
    cells *= n[a] + 2 * h + (a == 0 ? 2.0 * Layout::kAlign : 0);  // row padding, at most
  }
  const double need = cells * s.model->arrays * sizeof(real);
  const bool device = s.exec.on_device();
  const int sharing =
      device ? std::max(1, node_ranks / std::max(1, cuda_device_count())) : node_ranks;
  const double have = available_bytes(space_of(s.exec.backend())) / sharing;
  if (need <= have) return;
  const Int3 g = s.settings.grid.n;
  throw io::ConfigError(
      "grid.n: [" + std::to_string(g.x) + ", " + std::to_string(g.y) + ", " + std::to_string(g.z) +
      "] needs " + bytes_text(need) + " per rank (" + std::to_string(s.model->arrays) +
      " arrays of the local block " + std::to_string(n.x) + " x " + std::to_string(n.y) + " x " +
      std::to_string(n.z) + "), but " + bytes_text(have) + " of " + (device ? "device" : "host") +
      " memory are available per rank (" + std::to_string(sharing) +
      " rank(s) share it); use more ranks or a smaller grid");
}

// The config file as written (overrides applied) and resolved, from one reading of the file.
struct LoadedConfig {
  io::json user;      // for the warnings about keys that cannot apply
  io::json resolved;  // --output and --restart applied, checked, defaults filled in
};

LoadedConfig load_config(const RunRequest& request) {
  // Paths go into the config (JSON strings: UTF-8) and into snapshots' attributes.
  io::require_utf8(request.config_path, "the config file's name");
  if (request.output_dir) io::require_utf8(*request.output_dir, "--output");
  if (request.restart) io::require_utf8(*request.restart, "--restart");
  LoadedConfig loaded;
  loaded.user = io::load_config(request.config_path, request.overrides);
  io::json user = loaded.user;
  if (request.output_dir) {
    if (!user.contains("output") || !user["output"].is_object())
      user["output"] = io::json::object();
    user["output"]["dir"] = *request.output_dir;
  }
  if (request.restart) user["restart"] = *request.restart;
  const io::json model = user.contains("model") ? user["model"] : io::json("diffusion");
  if (!model.is_string()) throw io::ConfigError("model: expected a string, got " + model.dump());
  // File keys (e.g. a materials file) are relative to the config file, wherever the run starts.
  const std::string config_dir = fs::path(request.config_path).parent_path().string();
  loaded.resolved = schema_for(find_model(model.get<std::string>())).resolve(user, config_dir);
  return loaded;
}

// grid.units names the coordinates' unit of length: the model's own by default (a dimensional
// model's schema accepts no other).
void apply_grid_units(Setup& s) {
  std::string& units = s.settings.grid.units;
  if (units.empty()) units = s.model->units.length;
  s.config["grid"]["units"] = units;  // the stored config says what was written
}

// The model's units with the coordinates' unit of length.
io::UnitSystem output_units(const Setup& s) {
  io::UnitSystem u = s.model->units;
  u.length = s.settings.grid.units;
  return u;
}

Setup prepare(const RunRequest& request, const Comm& comm, int node_rank, int node_ranks) {
  Setup s;
  const LoadedConfig loaded = load_config(request);
  s.config = loaded.resolved;
  s.settings = RunSettings::from(s.config);
  s.warnings = inapplicable_keys(loaded.user, s.settings);
  check_output_dir(s.settings.output_dir);
  s.model = &find_model(s.settings.model);
  apply_grid_units(s);
  s.exec = make_exec(s.settings.backend, node_rank);
  // From here on every wait of the run (halos, reductions) gives up after exchange.timeout_s.
  const Comm job = comm.with_timeout(s.settings.timeout_s);
  s.dec = std::make_unique<Decomposition>(s.settings.grid, job, s.settings.dims, s.model->halo);
  check_memory(s, node_ranks);
  s.fault = FaultSpec::from(s.settings.fault, comm);
  const std::string& restart = s.settings.restart;
  if (!restart.empty() && !fs::is_regular_file(restart))
    throw io::ConfigError("restart: snapshot '" + restart + "' does not exist");
  return s;
}

// Everything `run` builds before its first step: setup, network (collective) and model.
std::unique_ptr<Model> start(Setup& s, const RunRequest& request, const Comm& comm) {
  const NodeComm node(comm);
  const ThreadPlan threads = plan_threads(node);
  std::unique_ptr<Model> model;
  together(comm, [&] { s = prepare(request, comm, node.rank(), node.size()); });
  s.threads = threads;
  s.node_rank = node.rank();
  s.node_ranks = node.size();
  if (comm.root()) warn(s.warnings);
  if (comm.root() && s.exec.backend() == Backend::cpu && threads.oversubscribed())
    std::cerr << "staghorn: warning: " << threads.describe(node.size())
              << ": more threads than cores, each waits for the others (set OMP_NUM_THREADS or "
                 "use fewer ranks)\n";
  // Threads by the cores' load where the plan is ours (OMP_NUM_THREADS is taken as given):
  // another process on a core would otherwise hold every kernel's threads
  // (core/thread_governor.hpp). A rank sharing its cores with the run's other ranks would count
  // them as load: not governed.
  if (s.exec.backend() == Backend::cpu && !threads.from_environment && threads.threads > 1 &&
      threads.sharing == 1)
    s.exec.use_thread_governor(std::make_shared<ThreadGovernor>(threads.threads, affinity_cpus()));
  // Collective (NCCL's communicator): built by every rank together, then shared by all exchanges.
  s.exec.use_network(std::make_shared<Network>(s.dec->comm(), s.exec, s.settings.transport,
                                               s.settings.nccl_library, s.settings.per_segment));
  together(s.dec->comm(), [&] { model = s.model->create({s.config, s.settings, *s.dec, s.exec}); });
  return model;
}

RunPrediction prediction(const Setup& s, Model& model) {
  return predict_run(s.settings, s.config, *s.dec, s.exec, *s.exec.network(),
                     static_cast<int>(model.state_fields().size()), *s.model);
}

std::string snapshot_path(const RunSettings& s, long long step) {
  char name[64];
  std::snprintf(name, sizeof name, "_%06lld.nc", step);
  return (fs::path(s.output_dir) / (s.prefix + name)).string();
}

// The run's XDMF index (PREFIX.xmf beside the snapshots), kept by rank 0; a restart takes over
// the snapshots of its directory up to its step.
std::unique_ptr<io::XdmfIndex> xdmf_index(const RunSettings& rs, const Model& model,
                                          long long start_step) {
  std::vector<io::XdmfField> fields;
  for (const Field* f : model.output_fields()) fields.push_back({f->name(), f->location()});
  auto index =
      std::make_unique<io::XdmfIndex>((fs::path(rs.output_dir) / (rs.prefix + ".xmf")).string(),
                                      rs.grid, fields, static_cast<int>(sizeof(real)));
  if (!rs.restart.empty()) index->adopt_existing(rs.prefix, start_step);
  return index;
}

// Rank 0 alone keeps the index, so a failure must not end its rank only (the others would wait
// in the next collective); the snapshot, the primary output, is written, so the run goes on.
void update_index(io::XdmfIndex& index, const std::string& snapshot, const LoopState& st) {
  try {
    index.add(snapshot, st.step, st.time);
  } catch (const std::exception& e) {
    std::cerr << "staghorn: warning: the ParaView index is not updated: " << e.what() << "\n";
  }
}

// The residual the progress line shows: the largest of what the tolerance measures.
double measured_residual(const std::vector<pt::Residual>& residuals, const io::ResidualMeasure& m) {
  if (m.name != "relative residual") return pt::max_norm(residuals);
  double worst = 0;
  for (const auto& e : residuals) worst = std::max(worst, e.start > 0 ? e.norm / e.start : 0.0);
  return worst;
}

std::string utc(std::time_t t) {
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string now_utc() { return utc(std::time(nullptr)); }

// Time per iteration in each phase of the exchanges (the slowest rank's), to show whether
// communication hides behind the inner region: with hiding, compute counts the shell and the
// inner region on their own lanes, and transfer runs concurrently with the inner one.
io::json phases(Network& net, const Comm& comm, long long iterations) {
  const auto totals = net.timer().totals();
  io::json p = io::json::object();
  for (int i = 0; i < kPhases; ++i)
    p[to_string(static_cast<Phase>(i))] =
        iterations > 0 ? 1e3 * comm.max(totals[i]) / iterations : 0.0;
  return p;
}

// The run's metrics record: throughput, and T_eff beside the measured copy bandwidth.
// The CPU reference of every rank: the one kept by an earlier run where every rank has one (then
// none measures), else measured now by every rank at once (ranks on one node share its memory as
// their kernels did) and kept by the node's first rank (the node's ranks share its key).
StreamReference cpu_reference(const Setup& s) {
  const Comm& comm = s.dec->comm();
  const std::string dir = stream_cache_dir(), key = stream_key(s.threads, s.node_ranks);
  const std::optional<StreamReference> kept =
      kept_stream(dir, key, s.settings.copy_bandwidth_max_age_s, std::time(nullptr));
  if (comm.max(kept ? 0.0 : 1.0) == 0) return *kept;
  StreamReference now{host_stream(1ull << 28), std::time(nullptr)};
  if (s.settings.copy_bandwidth_max_age_s > 0 && s.node_rank == 0) keep_stream(dir, key, now);
  return now;
}

// The copy bandwidth T_eff is compared with, per rank. On the GPU measured now by every rank at
// once; on the CPU STREAM's copy and triad (core/host_stream.hpp), with the arrays' size and the
// last-level cache it was chosen against, and when it was measured (stream_cache.hpp).
void add_bandwidth(io::json& m, const Setup& s, double teff_per_rank) {
  const Comm& comm = s.dec->comm();
  const double ranks = comm.size();
  if (s.exec.on_device()) {
    m["copy_bandwidth_GBs"] = comm.sum(copy_bandwidth(s.exec, 1ull << 30)) / ranks;
  } else {
    const StreamReference ref = cpu_reference(s);
    const HostStream& h = ref.stream;
    m["copy_bandwidth_GBs"] = comm.sum(h.copy_GBs) / ranks;
    // The oldest rank's: every rank's measured then, or later.
    m["copy_bandwidth_measured"] = utc(static_cast<std::time_t>(-comm.max(-double(ref.measured))));
    m["stream_triad_GBs"] = comm.sum(h.triad_GBs) / ranks;
    m["stream_array_MiB"] = h.array_bytes >> 20;
    m["last_level_cache_MiB"] = h.cache_bytes >> 20;
  }
  m["T_eff_fraction"] = teff_per_rank / m["copy_bandwidth_GBs"].get<double>();
}

// `solve_seconds`: this rank's steps, each timed once its work was done (TimeLoop); the run's is
// the slowest rank's, as its phases are.
io::json metrics(const Setup& s, const Model& model, long long steps, long long iterations,
                 double solve_seconds) {
  const RunSettings& rs = s.settings;
  const int ranks = s.dec->comm().size();
  const double cells = static_cast<double>(rs.grid.cells());
  const double wall = s.dec->comm().max(solve_seconds);
  const double t_it = iterations > 0 ? wall / iterations : 0;
  const double teff = t_it > 0 ? model.bytes_per_cell_iteration() * cells / t_it / 1e9 : 0;
  io::json m;
  m["model"] = rs.model;
  m["backend"] = to_string(s.exec.backend());
  m["device"] = s.exec.description();
  m["ranks"] = ranks;
  m["threads_per_rank"] = s.threads.threads;
  if (const ThreadGovernor* g = s.exec.thread_governor()) m["threads_chosen"] = g->chosen();
  m["cores_per_node"] = s.threads.node_cores;
  m["ranks_x_threads_on_cores"] = s.threads.describe(s.node_ranks);
  m["grid"] = {rs.grid.n.x, rs.grid.n.y, rs.grid.n.z};
  m["process_grid"] = {s.dec->dims().x, s.dec->dims().y, s.dec->dims().z};
  m["steps"] = steps;
  m["iterations"] = iterations;
  m["wall_time_s"] = wall;
  m["time_per_iteration_s"] = t_it;
  m["cell_updates_per_s"] = t_it > 0 ? cells / t_it : 0;
  m["bytes_per_cell_iteration"] = model.bytes_per_cell_iteration();
  m["T_eff_GBs"] = teff;
  m["T_eff_per_rank_GBs"] = teff / ranks;
  m["transport"] = s.exec.network()->description();
  if (rs.phase_timing)
    m["phases_ms_per_iteration"] = phases(*s.exec.network(), s.dec->comm(), iterations);
  if (rs.measure_copy_bandwidth && t_it > 0) add_bandwidth(m, s, teff / ranks);
  return m;
}

// Thrown out of the time loop at the end of a step when the run must stop (stop.hpp).
struct StopNow {
  std::string why;
  LoopState state;
};
// Thrown out of a step's solve, at a convergence check, when the run must stop (a model that can
// abandon its step: Model::can_abandon_step).
struct StopMidSolve {
  std::string why;
};

// Everything `run` does before it writes, with every refusal it makes: the set-up, the network
// and the model (materials read and placed), the performance model's inputs, and the state the
// run starts from (the initial condition or the restart: finite, a stable fixed step, an output
// directory free of other runs' files). `check` and `run --dry-run` stop after it: they refuse
// exactly what `run` refuses before writing.
struct Started {
  Setup s;
  std::unique_ptr<Model> model;
  std::unique_ptr<Watchdog> watchdog;  // exchange.timeout_s where MPI gives no error
  RunPrediction predicted;
  LoopState state;
  OutputPlan plan;
};

// The restart's state and carried numbers, read collectively within the watchdog's deadline.
LoopState read_restart(Started& st, const Comm& comm) {
  const RunSettings& rs = st.s.settings;
  std::error_code ec;
  const double bytes = static_cast<double>(fs::file_size(rs.restart, ec));
  const Watchdog::Deadline reading(*st.watchdog, ec ? 0.0 : bytes, "reading '" + rs.restart + "'");
  LoopState state;
  together(comm,
           [&] { state = load_restart(rs, st.s.config, *st.s.dec, st.s.exec, *st.model); });
  return state;
}

void initial_state(Started& st, const RunRequest& request, const Comm& comm) {
  const RunSettings& rs = st.s.settings;
  Model& model = *st.model;
  LoopState& state = st.state;
  if (!rs.restart.empty()) state = read_restart(st, comm);
  model.refresh();
  if (state.step > rs.steps)
    throw io::ConfigError("time.steps: " + std::to_string(rs.steps) +
                          " is before the restart's step " + std::to_string(state.step));
  if (rs.restart.empty()) {
    const std::string bad = first_non_finite(st.s.exec, *st.s.dec, model.output_fields());
    if (!bad.empty())
      throw NumericalError("the initial state is not finite (field '" + bad +
                           "'): check the initial condition's parameters; nothing was written");
  }
  model.check_time_step(static_cast<real>(rs.dt));  // collective; ConfigError on every rank
  st.plan = {rs.output_dir, rs.prefix, request.overwrite, std::nullopt};
  if (!rs.restart.empty() && restarts_in_place(rs.restart, rs.output_dir, rs.prefix))
    st.plan.continues = state.step;
  together(comm, [&] {
    if (comm.root()) check_previous_run(st.plan);
  });
}

void start_checked(Started& st, const RunRequest& request, const Comm& world) {
  st.model = start(st.s, request, world);
  const Comm& comm = st.s.dec->comm();  // with the run's timeout
  st.watchdog = std::make_unique<Watchdog>(st.s.settings.timeout_s);
  together(comm, [&] { st.predicted = prediction(st.s, *st.model); });
  initial_state(st, request, comm);
}

}  // namespace

io::json resolve_config(const RunRequest& request) { return load_config(request).resolved; }

void check(const RunRequest& request, const Comm& world, std::ostream& out, bool print_config,
           bool dry_run) {
  Started st;
  start_checked(st, request, world);
  const Setup& s = st.s;
  if (!world.root()) return;
  const Int3 d = s.dec->dims(), l = s.dec->local_cells();
  out << "model " << s.model->name << ", backend " << s.exec.description() << ", " << world.size()
      << " rank(s), process grid " << d.x << " x " << d.y << " x " << d.z << ", local block " << l.x
      << " x " << l.y << " x " << l.z << " cells, halo of the busiest rank "
      << Decomposition::halo_cost(s.settings.grid, d, s.model->halo) << " cells per field\n";
  if (print_config) out << s.config.dump(2) << "\n";
  if (dry_run) out << describe(st.predicted);
}

io::json run(const RunRequest& request, const Comm& world, std::ostream& out) {
  Started started;
  start_checked(started, request, world);
  Setup& s = started.s;
  Model& model = *started.model;
  Watchdog& watchdog = *started.watchdog;
  const Comm& comm = s.dec->comm();  // with the run's timeout
  const RunSettings& rs = s.settings;
  const bool several = comm.size() > 1;
  LoopState state = started.state;

  // Every check has passed: from here on the output directory is ours, locked for the run's life.
  TakenDir taken;
  together(comm, [&] {
    if (comm.root()) taken = take_output_dir(started.plan);
  });
  if (comm.root() && !taken.moved_aside.empty())
    warn({"restart from step " + std::to_string(state.step) + ": " +
          std::to_string(taken.moved_aside.size()) +
          " later snapshot(s) of the run it continues "
          "moved aside (" +
          taken.moved_aside.front() + (taken.moved_aside.size() > 1 ? ", ..." : "") +
          "): this run writes its own"});
  // From here on SIGTERM/SIGINT stop the run at a step's end, or within a step's solve.
  const StopWatch stop(rs.walltime_s);
  if (!several) watchdog.watch_progress();  // several ranks: each waits on the others
  const io::SnapshotMeta meta0{state.step,      state.time,      rs.model,
                               s.config.dump(), output_units(s), {}};
  std::string last_written = rs.restart;
  std::unique_ptr<io::XdmfIndex> index;
  if (comm.root()) index = xdmf_index(rs, model, state.step);
  auto last_good = [&] {
    return "the last good snapshot is " +
           (last_written.empty() ? std::string("none") : "'" + last_written + "'");
  };
  // Only a finite state is written: a snapshot is always a good one to restart from.
  auto write = [&](const LoopState& st) {
    const std::string bad = first_non_finite(s.exec, *s.dec, model.output_fields());
    if (!bad.empty())
      throw NumericalError("field '" + bad + "' is not finite at step " + std::to_string(st.step) +
                           " (not written)");
    io::SnapshotMeta meta = meta0;
    meta.step = st.step, meta.time = st.time;
    meta.carried = model.carried_state();
    const std::string path = snapshot_path(rs, st.step);
    try {
      const Watchdog::Deadline writing(watchdog,
                                       io::snapshot_bytes(*s.dec, model.output_fields(), meta),
                                       "writing '" + path + "'");
      s.fault.before_write(comm.rank(), st.step);  // debug.fault (tests)
      io::write_snapshot(path, *s.dec, model.output_fields(), meta);
    } catch (const io::NoRoom& e) {  // every rank: the write's outcome is agreed on
      throw OutputWriteError("cannot write " + path + ": " + e.what() + "; " + last_good(), false);
    } catch (const Error& e) {
      throw OutputWriteError("cannot write " + path + ": " + e.what() + "; " + last_good(), true);
    }
    last_written = path;
    if (index) update_index(*index, last_written, st);
  };
  std::vector<Diagnostic> diagnostics = model.diagnostics();  // collective
  // Rank 0 writes them, the values are already global; an in-place restart keeps the files' rows
  // and records up to its step (io/records.hpp, io/time_series.hpp).
  std::unique_ptr<DiagnosticsFiles> files;
  // Files with other columns are refused as bad input (exit 1); a row that fails is exit 4.
  together(comm, [&] {
    if (!comm.root()) return;
    files = std::make_unique<DiagnosticsFiles>(rs.output_dir, model, diagnostics,
                                               "Staghorn " + rs.model + " diagnostics",
                                               output_units(s), started.plan.continues);
    write_or_end([&] { files->start(state, diagnostics); }, last_good(), false);
  });
  if (rs.restart.empty() && rs.output_initial) write(state);

  const long long first_step = state.step;
  s.exec.network()->timer().reset();  // time the steps only
  s.exec.network()->timer().enable(s.settings.phase_timing);
  const double cells = static_cast<double>(rs.grid.cells());
  long long iterations = 0;
  double solve_seconds = 0;
  const io::ResidualMeasure measure = model.residual_measure();
  io::Progress progress(out, comm.root(), rs.log_interval, first_step, rs.steps, measure);
  // A long implicit solve reports within its step too; the watch ends with `progress`.
  struct Unwatch {
    Model& m;
    ~Unwatch() { m.watch_iterations({}); }
  } unwatch{model};
  // A stop during a long solve abandons the step where the model can go back to its start; the
  // check is collective (every rank checks at the same iterations), one reduction per check.
  const bool abandonable = model.can_abandon_step();
  model.watch_iterations([&](long long it, const std::vector<pt::Residual>& residuals) {
    progress.iterating(it, measured_residual(residuals, measure));
    if (!abandonable) return;
    const std::string why = stop.due(comm, 0);
    if (!why.empty()) throw StopMidSolve{why};
  });
  LoopState done = state;  // the latest step completed
  TimeLoop::Hooks hooks;
  hooks.after_step = [&](const LoopState& st, const StepReport& r, double seconds) {
    done = st;
    // Every step, before anything reports it: the first non-finite state ends the run.
    const std::string bad = first_non_finite(s.exec, *s.dec, model.output_fields());
    if (!bad.empty())
      throw NumericalError("field '" + bad + "' is not finite after step " +
                           std::to_string(st.step));
    iterations += r.iterations;
    solve_seconds += seconds;
    // Rows of both series only at the steps whose diagnostics are computed (never stale ones).
    if (st.step % rs.diagnostics_every == 0) {
      diagnostics = model.diagnostics();  // collective
      if (files)
        write_or_end([&] { files->step(st, r, seconds, diagnostics); }, last_good(), several);
    }
    progress.step(st.step, st.time, r.iterations, measured_residual(r.residuals, measure),
                  cells * iterations);
    const std::string why = stop.due(comm, seconds);
    if (!why.empty()) throw StopNow{why, st};
  };
  hooks.output = [&](const LoopState& st) {
    const bool scheduled = rs.output_every > 0 && st.step % rs.output_every == 0;
    if (rs.output_final || scheduled) write(st);
  };
  try {
    FaultyStepper stepper(model, s.fault, comm.rank(), state.step);  // debug.fault (tests)
    state = TimeLoop(rs.steps, rs.dt, rs.output_every).run(stepper, state, hooks);
  } catch (const StopNow& now) {
    if (last_written != snapshot_path(rs, now.state.step)) write(now.state);
    throw Stopped{now.why + " at step " + std::to_string(now.state.step), last_written};
  } catch (const StopMidSolve& now) {
    model.abandon_step();  // the state of step `done` again
    if (last_written != snapshot_path(rs, done.step)) write(done);
    throw Stopped{now.why + " at step " + std::to_string(done.step) + " (step " +
                      std::to_string(done.step + 1) + " abandoned mid-solve)",
                  last_written};
  } catch (const NumericalError& e) {
    throw NumericalError(std::string(e.what()) + "; " + last_good());
  }

  io::json m = metrics(s, model, state.step - first_step, iterations, solve_seconds);
  add_prediction(m, started.predicted, m["time_per_iteration_s"].get<double>());
  m["output_dir"] = rs.output_dir;
  m["finished"] = now_utc();
  if (comm.root()) {
    write_or_end(
        [&] { io::append_json_line((fs::path(rs.output_dir) / "metrics.jsonl").string(), m); },
        last_good(), several);
    out << m.dump() << std::endl;
  }
  return m;
}

}  // namespace staghorn::app
