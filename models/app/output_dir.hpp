#pragma once
// The output directory of a run: checked before anything is written, then taken over.

#include <string>

namespace staghorn::app {

// output.prefix must be a plain file-name component: non-empty, at most 200 bytes (room for
// "_STEP.nc.tmp" within a file system's 255), no '/', NUL or control characters, not "." or "..".
// Throws ConfigError naming output.prefix.
void check_prefix(const std::string& prefix);

// The output directory (output.dir or --output) must be a directory or creatable as one: no
// component that is a file, each component at most 255 bytes, and a writable existing ancestor.
// Throws ConfigError naming the path. Touches nothing.
void check_output_dir(const std::string& dir);

// Snapshots of another run in `dir` (files PREFIX_*.nc): a fresh run refuses to mix its files with
// them (ConfigError naming one of them) unless `overwrite`, where take_output_dir deletes them
// (the diagnostics files are replaced anyway: diagnostics.nc moved aside to .prev). A restart continues its own run's files. Rank 0 only; touches nothing unless
// `overwrite`.
void check_previous_run(const std::string& dir, const std::string& prefix, bool restart,
                        bool overwrite);

// After the checks: creates `dir`, and removes PREFIX_*.nc.tmp left by a run that was killed while
// writing (never a complete snapshot). Rank 0 only; throws ConfigError naming `dir` when it
// cannot be created after all (a file system that refuses what permissions allowed, e.g. /proc).
void take_output_dir(const std::string& dir, const std::string& prefix, bool overwrite);

}  // namespace staghorn::app
