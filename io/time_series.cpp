#include "io/time_series.hpp"

#include <netcdf.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "core/error.hpp"

namespace staghorn::io {
namespace {

namespace fs = std::filesystem;

void check(int code, const std::string& path, const std::string& call) {
  if (code != NC_NOERR)
    throw Error("time series '" + path + "': " + call + " failed: " + nc_strerror(code));
}

void put_text(int id, int var, const char* name, const std::string& value,
              const std::string& path) {
  check(nc_put_att_text(id, var, name, value.size(), value.c_str()), path,
        std::string("nc_put_att_text(") + name + ")");
}

void rename_file(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0)
    throw Error("time series: cannot rename '" + from + "' onto '" + to +
                "': " + std::strerror(errno));
}

// Closes a file opened for reading on scope exit.
struct Reader {
  int id = -1;
  ~Reader() {
    if (id >= 0) nc_close(id);
  }
};

std::vector<double> get_doubles(int id, int var, std::size_t n, const std::string& path,
                                const std::string& name) {
  std::vector<double> out(n + 1);  // never empty: a null buffer is not a valid argument
  const std::size_t start = 0;
  check(nc_get_vara_double(id, var, &start, &n, out.data()), path,
        "nc_get_vara_double(" + name + ")");
  out.resize(n);
  return out;
}

std::set<std::string> names_of(const std::vector<SeriesColumn>& columns) {
  std::set<std::string> out;
  for (const SeriesColumn& c : columns) out.insert(c.name);
  return out;
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

SeriesData read_time_series(const std::string& path) {
  Reader r;
  check(nc_open(path.c_str(), NC_NOWRITE, &r.id), path, "nc_open");
  int dim = -1;
  check(nc_inq_dimid(r.id, "time", &dim), path, "nc_inq_dimid(time)");
  std::size_t n = 0;
  check(nc_inq_dimlen(r.id, dim, &n), path, "nc_inq_dimlen(time)");
  int nvars = 0;
  check(nc_inq_nvars(r.id, &nvars), path, "nc_inq_nvars");
  SeriesData d;
  for (int v = 0; v < nvars; ++v) {
    char name[NC_MAX_NAME + 1] = {};
    check(nc_inq_varname(r.id, v, name), path, "nc_inq_varname");
    const std::vector<double> values = get_doubles(r.id, v, n, path, name);
    if (std::string(name) == "step") {
      d.step.assign(values.begin(), values.end());
    } else if (std::string(name) == "time") {
      d.time = values;
    } else {
      d.values[name] = values;
    }
  }
  if (d.step.size() != n || d.time.size() != n)
    throw Error("time series '" + path + "' has no step or time variable");
  return d;
}

TimeSeries::TimeSeries(const std::string& path, const std::vector<SeriesColumn>& columns,
                       const std::string& title, std::optional<long long> resume_after,
                       const UnitSystem& units)
    : path_(path), columns_(columns), units_(units) {
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (!resume_after || !exists) {
    if (exists) rename_file(path, path + ".prev");
    create(path, title);
    return;
  }
  const SeriesData old = read_time_series(path);
  std::set<std::string> found;
  for (const auto& entry : old.values) found.insert(entry.first);
  if (found != names_of(columns))
    throw Error("time series '" + path + "' holds the columns (" + joined(found) +
                "), this run writes (" + joined(names_of(columns)) +
                "): move the file away to restart");
  // Build the kept history beside the old file, then swap it in whole.
  const std::string tmp = path + ".tmp";
  create(tmp, title);
  for (std::size_t r = 0; r < old.records() && old.step[r] <= *resume_after; ++r) {
    std::vector<double> row;
    for (const SeriesColumn& c : columns_) row.push_back(old.values.at(c.name)[r]);
    put_record(old.step[r], old.time[r], row);
  }
  check(nc_sync(id_), tmp, "nc_sync");
  rename_file(tmp, path);  // the open file follows its inode
}

TimeSeries::~TimeSeries() {
  if (id_ >= 0) nc_close(id_);
}

void TimeSeries::create(const std::string& file, const std::string& title) {
  check(nc_create(file.c_str(), NC_CLOBBER | NC_64BIT_OFFSET, &id_), file, "nc_create");
  int dim = -1;
  check(nc_def_dim(id_, "time", NC_UNLIMITED, &dim), file, "nc_def_dim(time)");
  put_text(id_, NC_GLOBAL, "Conventions", "CF-1.8", file);
  put_text(id_, NC_GLOBAL, "title", title, file);
  put_text(id_, NC_GLOBAL, "source", "Staghorn", file);
  put_text(id_, NC_GLOBAL, "staghorn_units", units_name(units_), file);
  check(nc_def_var(id_, "time", NC_DOUBLE, 1, &dim, &time_var_), file, "nc_def_var(time)");
  put_text(id_, time_var_, "units", units_.time, file);
  put_text(id_, time_var_, "long_name", units_.describe("model time", units_.time), file);
  check(nc_def_var(id_, "step", NC_INT, 1, &dim, &step_var_), file, "nc_def_var(step)");
  put_text(id_, step_var_, "units", "1", file);
  put_text(id_, step_var_, "long_name", "time step number", file);
  for (const SeriesColumn& c : columns_) {
    int var = -1;
    check(nc_def_var(id_, c.name.c_str(), NC_DOUBLE, 1, &dim, &var), file,
          "nc_def_var(" + c.name + ")");
    put_text(id_, var, "units", c.units, file);
    put_text(id_, var, "long_name", c.long_name.empty() ? c.name : c.long_name, file);
    vars_.push_back(var);
  }
  check(nc_enddef(id_), file, "nc_enddef");
  check(nc_sync(id_), file, "nc_sync");
}

void TimeSeries::put_record(long long step, double time, const std::vector<double>& values) {
  if (values.size() != columns_.size())
    throw Error("time series '" + path_ + "': " + std::to_string(values.size()) + " values for " +
                std::to_string(columns_.size()) + " columns");
  if (step < INT_MIN || step > INT_MAX)
    throw Error("time series '" + path_ + "': step " + std::to_string(step) +
                " does not fit the int step variable");
  const std::size_t at = records_, one = 1;
  const int s = static_cast<int>(step);
  for (std::size_t c = 0; c < columns_.size(); ++c)
    check(nc_put_vara_double(id_, vars_[c], &at, &one, &values[c]), path_,
          "nc_put_vara_double(" + columns_[c].name + ")");
  check(nc_put_vara_int(id_, step_var_, &at, &one, &s), path_, "nc_put_vara_int(step)");
  check(nc_put_vara_double(id_, time_var_, &at, &one, &time), path_, "nc_put_vara_double(time)");
  ++records_;
}

void TimeSeries::append(long long step, double time, const std::vector<double>& values) {
  put_record(step, time, values);
  check(nc_sync(id_), path_, "nc_sync");
}

}  // namespace staghorn::io
