#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "io/units.hpp"

namespace staghorn::io {

// One quantity of a time series: a variable over the record dimension.
struct SeriesColumn {
  std::string name;
  std::string units = "1";
  std::string long_name;  // empty: the name
};

// What a time series file holds, read back whole (small: one value per record and column).
struct SeriesData {
  std::vector<long long> step;
  std::vector<double> time;
  std::map<std::string, std::vector<double>> values;  // by column name
  std::size_t records() const { return step.size(); }
};

// Reads a file written by TimeSeries. Throws staghorn::Error if it cannot.
SeriesData read_time_series(const std::string& path);

// A time series of already reduced quantities in one netCDF file (e.g. OUTPUT/diagnostics.nc):
// an unlimited dimension `time` with the model time as its coordinate (no CF time axis: see
// io/snapshot.cpp's define_time), `step` (int) and one double
// variable per column with units and long_name. Written by one process (the caller picks rank 0);
// every append is synced to disk, so a run that crashes keeps what it had appended. The file is
// netCDF's 64-bit offset format (CDF-2): a record append rewrites only the record count in the
// header, so a crash cannot leave an earlier record or the header half-written (an HDF5-based
// netCDF-4 file can lose everything when its writer dies).
//
// An existing file at `path`:
//  - a new run (resume_after empty) moves it to `path + ".prev"` (replacing an older one) and
//    starts an empty file: no earlier output is overwritten in place;
//  - a restarted run (resume_after = the restart's step) keeps its records up to and including
//    that step and drops the later ones (the restarted run writes them again); the kept records
//    are copied into a new file that replaces the old one atomically (rename), so a crash in
//    between leaves the old file whole. Its columns must be `columns`, else Error (and the file
//    is left alone). Without an existing file a restart starts an empty one.
class TimeSeries {
 public:
  // `units`: of the time coordinate, and the scaling of a dimensionless model (global attribute
  // staghorn_units, as in snapshots).
  TimeSeries(const std::string& path, const std::vector<SeriesColumn>& columns,
             const std::string& title, std::optional<long long> resume_after,
             const UnitSystem& units = {});
  ~TimeSeries();
  TimeSeries(const TimeSeries&) = delete;
  TimeSeries& operator=(const TimeSeries&) = delete;

  // Appends one record (values in the order of the columns) and syncs the file.
  void append(long long step, double time, const std::vector<double>& values);
  std::size_t records() const { return records_; }
  const std::string& path() const { return path_; }

 private:
  void create(const std::string& file, const std::string& title);
  void put_record(long long step, double time, const std::vector<double>& values);

  std::string path_;
  std::vector<SeriesColumn> columns_;
  UnitSystem units_;
  int id_ = -1;
  int step_var_ = -1, time_var_ = -1;
  std::vector<int> vars_;
  std::size_t records_ = 0;
};

}  // namespace staghorn::io
