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

// Diagnostics or a snapshot that could not be written (a full disk, a file-size limit, an I/O
// error), with the last good snapshot named (exit code 4); a snapshot's .tmp file is gone.
// `abort_job`: the job must end through MPI_Abort, either because only some ranks know (rank 0
// writes the diagnostics) or because HDF5 failed half-way through a snapshot and cannot shut
// down cleanly (it would crash in MPI_Finalize).
struct OutputWriteError : Error {
  OutputWriteError(const std::string& message, bool abort) : Error(message), abort_job(abort) {}
  bool abort_job;
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

// `staghorn check` / `run --dry-run`: everything `run` does before it writes, and every refusal
// it makes then (keys, grid, backend, decomposition, the model built with its materials, the
// restart file, a stable step, other runs' files in the output directory); prints a one-line
// summary (model, backend, decomposition), then the resolved config if `print_config`, then
// with `dry_run` the performance model's prediction (models/app/performance.hpp). Writes
// nothing.
void check(const RunRequest& request, const Comm& comm, std::ostream& out,
           bool print_config = false, bool dry_run = false);

// `staghorn run`: runs the model; returns the metrics record (also appended to metrics.jsonl).
// Nothing in the output directory is touched before every check has passed.
io::json run(const RunRequest& request, const Comm& comm, std::ostream& out);

}  // namespace staghorn::app
