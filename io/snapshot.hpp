#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/decomposition.hpp"
#include "core/error.hpp"
#include "core/field.hpp"
#include "io/units.hpp"

namespace staghorn::io {

// What a snapshot records besides the fields: enough to restart (step, time) and to tell where it
// came from (model, resolved config).
struct SnapshotMeta {
  long long step = 0;  // physical time step number
  double time = 0;     // model time
  std::string model;   // model name, e.g. "diffusion"
  std::string config;  // the resolved JSON config as text (stored as a global attribute)
  UnitSystem units;    // of time and coordinates; scaled models also describe their fields
  // Numbers the model carries from step to step (Model::carried_state), by name: global
  // attributes staghorn_carried_NAME, exact doubles.
  std::vector<std::pair<std::string, double>> carried;
};

// A snapshot that did not fit (the file system's free space, the process's file-size limit),
// refused before the file was created.
class NoRoom : public staghorn::Error {
 public:
  using Error::Error;
};

// Where a snapshot sits in its series.
struct SnapshotStamp {
  long long step = 0;
  double time = 0;
};

// The step and time the snapshot at `path` records (global attributes staghorn_step and
// staghorn_time), read by this process alone; none where `path` is not a snapshot staghorn wrote
// (or cannot be read).
std::optional<SnapshotStamp> snapshot_stamp(const std::string& path);

// Bytes the snapshot of `fields` will take, about: every field point, and room for the header
// (attributes, the config text, HDF5's metadata and checksums).
double snapshot_bytes(const Decomposition& dec, const std::vector<const Field*>& fields,
                      const SnapshotMeta& meta);

// Writes `fields` to one NetCDF-4 file (CF-1.8) through netCDF's parallel API. Collective over
// dec.comm(): every rank writes the points it owns (no halos). Each staggered location gets its
// own dimension and coordinate ("x" for cell centres, "x_face" for faces, both with `axis`, faces
// with `c_grid_axis_shift` as xgcm and SGRID expect); inactive axes are left out. `time(time)`
// holds meta.time and `step(time)` meta.step, so a series concatenates along time in xarray. The
// file is written to `path + ".tmp"` and renamed onto `path` when complete, so an existing file at
// `path` is never left half-written. Throws NoRoom, before anything is created, when the file
// would not fit (see NoRoom). Fields may live on the GPU. Throws staghorn::Error on every rank if
// any rank fails.
void write_snapshot(const std::string& path, const Decomposition& dec,
                    const std::vector<const Field*>& fields, const SnapshotMeta& meta);

// Reads the owned points of each field (by name) from a snapshot written by write_snapshot for the
// same grid; halos are left as they are. Collective over dec.comm(). Throws staghorn::Error on
// every rank for a file that cannot be opened or a variable that is missing or has other dims.
SnapshotMeta read_snapshot(const std::string& path, const Decomposition& dec,
                           const std::vector<Field*>& fields);

}  // namespace staghorn::io
