#include "models/app/restart.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <iostream>

#include "core/bounded_message.hpp"
#include "core/decimal.hpp"
#include "core/finite.hpp"
#include "io/snapshot.hpp"

namespace staghorn::app {
namespace {

// The keys of the restart's own config that set its physics (the model's section and the grid),
// which differ from this run's: each is worth a warning, since the state was made by other
// physics. Output, time and run keys may differ by design.
std::vector<std::string> changed_physics(const io::json& was, const io::json& now,
                                         const std::string& model) {
  std::vector<std::string> out;
  const io::json a = was.flatten(), b = now.flatten();
  for (auto it = b.begin(); it != b.end(); ++it) {
    const std::string key = it.key();  // "/mhd/nu"
    const bool physics = key.rfind("/" + model + "/", 0) == 0 || key.rfind("/grid/", 0) == 0;
    if (!physics) continue;
    const auto old = a.find(key);
    std::string dotted = key.substr(1);
    std::replace(dotted.begin(), dotted.end(), '/', '.');
    if (old == a.end())
      out.push_back(dotted + " (not in the restart file)");
    else if (*old != it.value())
      out.push_back(dotted + " was " + old->dump() + ", is now " + it.value().dump());
  }
  return out;
}

// A step the run can continue from (0 to time.steps' largest, an int as diagnostics.nc stores
// it) and a finite time: an edited file is refused before anything is written.
void check_stamp(const std::string& path, const io::SnapshotMeta& meta) {
  if (meta.step < 0 || meta.step > INT_MAX)
    throw io::ConfigError("restart: '" + path + "': staghorn_step " + std::to_string(meta.step) +
                          " is not a step (0 to " + std::to_string(INT_MAX) + ")");
  if (!std::isfinite(meta.time))
    throw io::ConfigError("restart: '" + path + "': staghorn_time " + shortest(meta.time) +
                          " is not a finite time");
}

}  // namespace

LoopState load_restart(const RunSettings& run, const io::json& config, const Decomposition& dec,
                       const Exec& ex, Model& model) {
  const std::string& path = run.restart;
  const std::string& name = run.model;
  const io::SnapshotMeta meta = io::read_snapshot(path, dec, model.state_fields());
  if (meta.model != name)
    throw io::ConfigError("restart: '" + path + "' holds model " + meta.model + ", not " + name);
  check_stamp(path, meta);
  try {
    model.set_carried_state(meta.carried);
  } catch (const io::ConfigError& e) {
    throw io::ConfigError("restart: '" + path + "' " + e.what() + " (an edited file?)");
  }
  std::vector<const Field*> state;
  for (Field* f : model.state_fields()) state.push_back(f);
  const std::string bad = first_non_finite(ex, dec, state);
  if (!bad.empty())
    throw io::ConfigError("restart: '" + path + "': variable '" + bad +
                          "' is not finite (a corrupt file, or a broken state); nothing was "
                          "written");
  io::json was;
  try {
    was = io::json::parse(meta.config);
  } catch (const std::exception&) {  // not written by staghorn: nothing to compare with
    was = io::json::object();
  }
  if (dec.comm().root())
    for (const std::string& change : changed_physics(was, config, name))
      std::cerr << "staghorn: warning: "
                << bounded_message("restart: " + change + " ('" + path +
                                   "' was made with other physics)")
                << "\n";
  return {meta.step, meta.time};
}

}  // namespace staghorn::app
