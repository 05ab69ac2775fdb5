#pragma once
// The CPU's copy bandwidth reference (core/host_stream.hpp), kept per machine. STREAM over arrays
// of four times the last-level cache costs seconds and gigabytes (a virtual machine may report
// its whole host's L3), often more than a short run itself, and its result is a property of the
// machine, of the CPUs a rank may use, of its threads and of the ranks sharing the node: a run
// reuses the reference an earlier run measured with the same key while it is younger than
// metrics.copy_bandwidth_max_age_days, and measures (and keeps) it otherwise.

#include <ctime>
#include <optional>
#include <string>

#include "core/host_stream.hpp"
#include "core/threads.hpp"

namespace staghorn::app {

struct StreamReference {
  HostStream stream;
  std::time_t measured = 0;  // when it was measured (UTC seconds)
};

// Where references are kept: $STAGHORN_CACHE_DIR, else $XDG_CACHE_HOME/staghorn, else
// $HOME/.cache/staghorn; "" when none of them is set (nothing kept).
std::string stream_cache_dir();

// What identifies a reference: the host, its CPU model, the cores this rank may run on, and its
// threads and the node's ranks and cores (plan, core/threads.hpp).
std::string stream_key(const ThreadPlan& plan, int node_ranks);

// The reference kept for `key` in dir, if measured less than max_age_s before `now`. A missing,
// unreadable or malformed file, or an entry of another shape, reads as none: never an error.
std::optional<StreamReference> kept_stream(const std::string& dir, const std::string& key,
                                           double max_age_s, std::time_t now);

// Keeps `ref` for `key` in dir beside the other keys' (the directory made if need be; written to a
// temporary file, then renamed over the old one, so that a reader never sees half a file). Returns
// whether it was kept; a directory that cannot be written leaves everything as it was.
bool keep_stream(const std::string& dir, const std::string& key, const StreamReference& ref);

}  // namespace staghorn::app
