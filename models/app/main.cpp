// The staghorn command: run, check and describe models from JSON configs.
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "core/bounded_message.hpp"
#include "core/comm.hpp"
#include "core/error.hpp"
#include "core/host_isa.hpp"
#include "io/schema.hpp"
#include "models/app/run.hpp"
#include "models/app/stop.hpp"
#include "models/registry.hpp"

namespace {

using namespace staghorn;

constexpr const char* kUsage = R"(usage:
  staghorn run CONFIG [--set path=value]... [--output DIR] [--restart SNAPSHOT] [--overwrite]
               [--dry-run] [--print-config]
  staghorn check CONFIG [--set path=value]... [--output DIR] [--restart SNAPSHOT] [--print-config]
  staghorn describe [MODEL] [--json-schema]
  staghorn COMMAND --help | staghorn --help | --version
Run under MPI with `mpirun -np N staghorn run ...`. Exit codes: 0 success, 1 bad input,
2 bad command line, 3 numerical failure (NaN, divergence, no convergence), 4 other errors,
5 a peer rank stalled or was lost (no answer within exchange.timeout_s), 6 stopped early by
SIGTERM, SIGINT or run.walltime after writing a restart snapshot (named in the message).
)";

constexpr const char* kRunHelp = R"(usage: staghorn run CONFIG [options]
Runs the model of the JSON config CONFIG; writes snapshots (PREFIX_STEP.nc), their ParaView index
(PREFIX.xmf), diagnostics.csv, diagnostics.nc and metrics.jsonl to output.dir.
  --set path=value     override one key (grid.n=[64,64,1], time.steps=100; repeatable)
  --output DIR         output directory (overrides output.dir)
  --restart SNAPSHOT   continue from a snapshot's step and time to time.steps
  --overwrite          delete another run's snapshots in the output directory first
  --dry-run            check everything and print the summary and the performance model's
                       prediction; write nothing
  --print-config       with --dry-run: also print the resolved config (defaults filled in)
Every error of the config is reported at once; nothing is written before all checks pass.
Exit codes: 0 success, 1 bad input, 2 bad command line, 3 numerical failure, 4 other errors,
5 a peer rank stalled or was lost, 6 stopped early (SIGTERM, SIGINT, run.walltime) after writing
a restart snapshot.
)";

constexpr const char* kCheckHelp =
    R"(usage: staghorn check CONFIG [--set path=value]... [--output DIR] [--restart SNAPSHOT]
                      [--print-config]
Does everything `run` does before it writes (keys, types, ranges, grid, backend, decomposition,
the model built with its materials, the restart file, a stable step, other runs' files in the
output directory), so it refuses what `run` refuses, and prints a one-line summary: model,
backend, ranks, process grid, local block, halo. Every error of the config is reported at once,
with its key's path. Writes nothing.
  --set path=value     override one key (repeatable)
  --output DIR         the output directory `run` would write to (checked for other runs)
  --restart SNAPSHOT   the snapshot `run` would continue from (read and checked)
  --print-config       also print the resolved config (defaults filled in), after the summary
Exit codes: 0 valid, 1 bad input, 2 bad command line, 3 an initial state that is not finite,
4 other errors.
)";

constexpr const char* kDescribeHelp = R"(usage: staghorn describe [MODEL] [--json-schema]
Without MODEL: lists the models. With MODEL: every configuration key of that model with its
type, default, accepted values and meaning.
  --json-schema        print a JSON Schema (draft-07) of every model's keys instead, for
                       editors to complete and validate configs, e.g.
                       staghorn describe --json-schema > staghorn.schema.json
)";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Command {
  std::string verb;
  app::RunRequest request;
  bool dry_run = false;
  bool print_config = false;
  bool json_schema = false;
  bool help = false;
  std::string model;
};

Command parse(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) throw UsageError("no command given");
  Command c;
  c.verb = args[0];
  auto value = [&](std::size_t& i) {
    if (i + 1 >= args.size()) throw UsageError(args[i] + " needs a value");
    return args[++i];
  };
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--set") {
      const std::string assignment = value(i);
      const auto eq = assignment.find('=');
      if (eq == std::string::npos || eq == 0)
        throw UsageError("--set " + assignment + ": expected path=value");
      c.request.overrides.push_back(assignment);
    } else if (a == "--output")
      c.request.output_dir = value(i);
    else if (a == "--restart")
      c.request.restart = value(i);
    else if (a == "--overwrite")
      c.request.overwrite = true;
    else if (a == "--dry-run")
      c.dry_run = true;
    else if (a == "--print-config")
      c.print_config = true;
    else if (a == "--json-schema" && c.verb == "describe")
      c.json_schema = true;
    else if (a == "--help" || a == "-h")
      c.help = true;
    else if (a.rfind("--", 0) == 0)
      throw UsageError("unknown option " + a);
    else if (c.verb == "describe" && c.model.empty())
      c.model = a;
    else if (c.request.config_path.empty() && c.verb != "describe")
      c.request.config_path = a;
    else
      throw UsageError("unexpected argument " + a);
  }
  if (c.help) return c;
  if ((c.verb == "run" || c.verb == "check") && c.request.config_path.empty())
    throw UsageError(c.verb + " needs a CONFIG file");
  return c;
}

void describe(const std::string& name, std::ostream& out) {
  if (name.empty()) {
    out << "models:\n";
    for (const auto& m : models()) out << "  " << m.name << ": " << m.summary << "\n";
    out << "`staghorn describe MODEL` lists every configuration key of a model.\n";
    return;
  }
  const ModelInfo& m = find_model(name);
  out << m.name << ": " << m.summary << "\nconfiguration keys (type, default, accepted values):\n";
  schema_for(m).describe(out);
}

// `staghorn COMMAND --help`.
int help(const std::string& verb) {
  if (verb == "run") return std::cout << kRunHelp, 0;
  if (verb == "check") return std::cout << kCheckHelp, 0;
  if (verb == "describe") return std::cout << kDescribeHelp, 0;
  throw UsageError("unknown command " + verb);
}

int execute(const Command& c, const Comm& comm) {
  if (c.help) return comm.root() ? help(c.verb) : 0;
  if (c.verb == "describe" && c.json_schema) {
    if (comm.root()) std::cout << config_json_schema().dump(2) << "\n";
  } else if (c.verb == "describe") {
    if (comm.root()) describe(c.model, std::cout);
  } else if (c.verb == "check" || (c.verb == "run" && c.dry_run)) {
    app::check(c.request, comm, std::cout, c.print_config, c.dry_run);
  } else if (c.verb == "run") {
    app::run(c.request, comm, std::cout);
  } else {
    throw UsageError("unknown command " + c.verb);
  }
  return 0;
}

int report(const Comm& comm, const char* kind, const std::exception& e, int code) {
  // Every rank fails alike on bad input; for other errors a lone failing rank must not leave the
  // others waiting in a collective.
  // One write of the whole line: written in pieces, another rank's output (or MPI_Abort's
  // banner) can land between them on the launcher's shared stderr.
  if (comm.root() || code != 1) {
    const std::string line = std::string("staghorn: ") + kind + ": " + bounded_message(e.what());
    std::cerr << line + "\n" << std::flush;
  }
  if (code != 1 && comm.size() > 1) MPI_Abort(comm.get(), code);
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  // Global options come first; `staghorn COMMAND --help` is the command's own help.
  if (argc > 1) {
    const std::string a = argv[1];
    if (a == "--help" || a == "-h") return std::cout << kUsage, 0;
    if (a == "--version") return std::cout << "staghorn " << STAGHORN_VERSION << "\n", 0;
  }
  if (const std::string missing = staghorn::missing_host_isa(); !missing.empty()) {
    std::cerr << "staghorn: error: this build's CPU code needs" << missing
              << ", which this CPU lacks: rebuild with -DSTAGHORN_CPU_ARCH=native (or \"\")\n";
    return 4;
  }
  // A write beyond the file-size limit then fails with EFBIG, reported like a full disk, instead
  // of killing the process (SIGXFSZ) with half a line written.
  std::signal(SIGXFSZ, SIG_IGN);
  // On a GPU, every kernel is loaded when CUDA starts instead of at its first launch (CUDA's lazy
  // default): the first step then takes as long as the others, and a run's time per iteration
  // is its kernels' from the first step on. Set before MPI, which may start CUDA; a value the
  // user set is kept.
  setenv("CUDA_MODULE_LOADING", "EAGER", /*overwrite=*/0);
  MpiSession mpi(&argc, &argv);
  const Comm comm;
  try {
    return execute(parse(argc, argv), comm);
  } catch (const app::Stopped& e) {
    if (comm.root())
      std::cerr << "staghorn: stopped: " << e.reason << "; restart snapshot '" << e.restart
                << "' (continue with --restart " << e.restart << ")" << std::endl;
    return app::kStoppedExit;
  } catch (const app::OutputWriteError& e) {
    if (comm.root()) std::cerr << "staghorn: error: " << bounded_message(e.what()) << std::endl;
    if (e.abort_job) MPI_Abort(comm.get(), 4);
    return 4;
  } catch (const app::StartFailed& e) {
    if (e.print) std::cerr << "staghorn: error: " << bounded_message(e.message) << std::endl;
    return e.code;
  } catch (const UsageError& e) {
    if (comm.root()) std::cerr << "staghorn: " << bounded_message(e.what()) << "\n" << kUsage;
    return 2;
  } catch (const io::ConfigError& e) {
    return report(comm, "error", e, 1);
  } catch (const NumericalError& e) {
    return report(comm, "numerical failure", e, 3);
  } catch (const PeerTimeout& e) {
    return report(comm, "communication failure", e, 5);
  } catch (const Error& e) {
    return report(comm, "error", e, 1);
  } catch (const std::exception& e) {
    return report(comm, "internal error", e, 4);
  }
}
