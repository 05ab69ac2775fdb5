#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"
#include "io/schema.hpp"

namespace staghorn::app {

// A start that failed on some rank, raised on every rank so that none goes on into collectives
// the others never reach. `print`: this rank reports it (the first rank that failed, and rank 0
// when it did not fail itself), so a config error read alike by all ranks is reported once.
struct StartFailed {
  std::string message;
  int code;  // exit code: 1 bad input, 4 other errors
  bool print;
};

// A snapshot that could not be written (disk full, a file-size limit, an I/O error), with the
// last good snapshot named; the .tmp file is gone. `library_broken`: HDF5 failed half-way through
// the file and cannot shut down cleanly (it would crash in MPI_Finalize), so the job must end
// through MPI_Abort.
struct SnapshotWriteError : Error {
  SnapshotWriteError(const std::string& message, bool broken)
      : Error(message), library_broken(broken) {}
  bool library_broken;
};

// What the command line asks for.
struct RunRequest {
  std::string config_path;
  std::vector<std::string> overrides;     // --set path=value
  std::optional<std::string> output_dir;  // --output DIR
  std::optional<std::string> restart;     // --restart FILE
  bool overwrite = false;                 // --overwrite: replace another run's files in DIR
};

// The user's config, overridden, checked against the model's schema and completed with defaults.
// Throws ConfigError naming the offending key.
io::json resolve_config(const RunRequest& request);

// `staghorn check` / `run --dry-run`: validates everything a run would (grid, backend,
// decomposition, restart file) and prints a one-line summary (model, backend, decomposition),
// then the resolved config if `print_config`. Writes nothing.
void check(const RunRequest& request, const Comm& comm, std::ostream& out,
           bool print_config = false);

// `staghorn run --dry-run`, after `check`: builds the model (no step taken), probes the link and
// prints the performance model's prediction (models/app/performance.hpp).
void predict(const RunRequest& request, const Comm& comm, std::ostream& out);

// `staghorn run`: runs the model; returns the metrics record (also appended to metrics.jsonl).
// Nothing in the output directory is touched before every check has passed.
io::json run(const RunRequest& request, const Comm& comm, std::ostream& out);

}  // namespace staghorn::app
