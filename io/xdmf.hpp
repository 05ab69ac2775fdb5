#pragma once
#include <string>
#include <vector>

#include "core/geometry.hpp"
#include "core/grid.hpp"

namespace staghorn::io {

// A field as the XDMF index describes it: its variable in the snapshots and where its points are.
struct XdmfField {
  std::string name;
  Location location = Location::cell;
};

// One snapshot file of the series.
struct XdmfSnapshot {
  std::string file;  // relative to the index (the snapshots sit beside it)
  long long step = 0;
  double time = 0;
};

// The XDMF 2 text of a snapshot series, for ParaView: a temporal collection with one
// spatial collection per snapshot and in it one uniform grid per staggered location, each of
// cells centred on the points of its fields (cell centres for cell fields; a grid shifted half a
// cell, with the closing face on bounded axes, for face fields), in physical coordinates. Every
// field is cell data read in place from its NetCDF-4 (HDF5) variable: nothing is copied.
// `real_bytes`: 4 or 8, the precision the fields are stored in.
std::string xdmf_text(const Grid& grid, const std::vector<XdmfField>& fields,
                      const std::vector<XdmfSnapshot>& snapshots, int real_bytes);

// The index of one run's snapshots (`PREFIX.xmf` beside them), rewritten whole at every new
// snapshot through a temporary file and a rename, so a reader never sees half of it.
class XdmfIndex {
 public:
  XdmfIndex(std::string path, Grid grid, std::vector<XdmfField> fields, int real_bytes);
  // A restart: the snapshots of the directory with steps up to `step`, read from their files.
  void adopt_existing(const std::string& prefix, long long step);
  // Adds (or replaces, for the same step) a snapshot written beside the index, and rewrites it.
  void add(const std::string& snapshot_path, long long step, double time);
  const std::vector<XdmfSnapshot>& snapshots() const { return snapshots_; }

 private:
  void write() const;

  std::string path_;
  Grid grid_;
  std::vector<XdmfField> fields_;
  int real_bytes_;
  std::vector<XdmfSnapshot> snapshots_;
};

}  // namespace staghorn::io
