#pragma once
// The output directory of a run: checked before anything is written, then taken over (locked for
// the run's life: models/app/output_lock.hpp).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/app/output_lock.hpp"

namespace staghorn::app {

// The output directory (output.dir or --output) must be a directory or creatable as one: no
// component that is a file, each component at most 255 bytes, and a writable existing ancestor.
// Throws ConfigError naming the path. Touches nothing.
void check_output_dir(const std::string& dir);

// How a run uses its output directory.
struct OutputPlan {
  std::string dir, prefix;
  bool overwrite = false;  // --overwrite: another run's files are deleted
  // A restart from one of the directory's own snapshots (restarts_in_place): its step. The
  // directory's series of this prefix up to that step, and its diagnostics, are the run's own.
  std::optional<long long> continues;
};

// Whether the snapshot `restart` is one of `dir`'s series PREFIX_<digits>.nc.
bool restarts_in_place(const std::string& restart, const std::string& dir,
                       const std::string& prefix);

// Another run's files in the directory: a run refuses to mix its files with them (ConfigError
// naming one) unless it overwrites them. Another run's files are the snapshots of every prefix
// (NAME_<digits>.nc: of the run's own prefix by name, of another where staghorn wrote it) and
// diagnostics.csv and diagnostics.nc; an in-place restart owns its own prefix's snapshots and the
// diagnostics (snapshots of another prefix are still refused). Rank 0 only; touches nothing.
void check_previous_run(const OutputPlan& plan);

// The directory after the checks: locked, and the files of its snapshots later than an in-place
// restart's step moved aside (renamed NAME.superseded), so that no snapshot of the run it
// continues is left beside the new run's series.
struct TakenDir {
  std::unique_ptr<OutputLock> lock;
  std::vector<std::string> moved_aside;
};

// Creates the directory, locks it (a lock held elsewhere: ConfigError naming the holder), checks
// again under the lock (check_previous_run: no other run can start writing between the check and
// the writes), removes PREFIX_*.nc.tmp left by a run killed while writing and, with `overwrite`,
// another run's snapshots of every prefix and their indices (the diagnostics are replaced by the
// run itself: diagnostics.nc moved aside to .prev). Rank 0 only; a refusal leaves the directory
// as it was (one it created is removed again).
TakenDir take_output_dir(const OutputPlan& plan);

}  // namespace staghorn::app
