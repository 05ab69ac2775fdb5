#include "models/materials/material_file.hpp"

#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>

#include "io/schema.hpp"

namespace staghorn::materials {
namespace {

// An open file, closed on every path out.
struct NcFile {
  int id = -1;
  ~NcFile() {
    if (id >= 0) nc_close(id);
  }
};

// Where errors point: the config key, the file and the variable.
struct Place {
  std::string key, file, variable;
  [[noreturn]] void fail(const std::string& what) const {
    throw io::ConfigError(key + ": file '" + file + "', variable '" + variable + "': " + what);
  }
};

std::string variables_of(int nc) {
  int n = 0;
  nc_inq_nvars(nc, &n);
  std::string list;
  for (int v = 0; v < n; ++v) {
    char name[NC_MAX_NAME + 1];
    if (nc_inq_varname(nc, v, name) == NC_NOERR)
      list += (list.empty() ? "" : ", ") + std::string(name);
  }
  return list.empty() ? "none" : list;
}

// The axis a dimension stands for: by name, by the coordinate's axis attribute, or -1.
int axis_by_name(int nc, int coord, const std::string& dim) {
  if (dim == "x" || dim == "X") return 0;
  if (dim == "y" || dim == "Y") return 1;
  if (dim == "z" || dim == "Z") return 2;
  std::size_t len = 0;
  if (coord < 0 || nc_inq_attlen(nc, coord, "axis", &len) != NC_NOERR || len != 1) return -1;
  char a[2] = {0, 0};
  if (nc_get_att_text(nc, coord, "axis", a) != NC_NOERR) return -1;
  return a[0] == 'X' ? 0 : a[0] == 'Y' ? 1 : a[0] == 'Z' ? 2 : -1;
}

std::vector<double> read_all(const Place& at, int nc, int var, std::size_t n) {
  std::vector<double> out(n);
  if (int e = nc_get_var_double(nc, var, out.data()); e != NC_NOERR)
    at.fail(std::string("cannot be read (") + nc_strerror(e) + ")");
  return out;
}

// Ascending coordinates of axis a (reversed when the file's descend); checks they are finite,
// strictly monotonic and cover the cell centres.
std::vector<double> coordinate(const Place& at, int nc, const std::string& dim, std::size_t n,
                               const Grid& g, int a, bool& flipped) {
  int var = -1;
  if (nc_inq_varid(nc, dim.c_str(), &var) != NC_NOERR)
    at.fail("dimension '" + dim + "' has no coordinate variable of that name");
  if (n < 2) at.fail("dimension '" + dim + "' needs at least 2 points to interpolate");
  std::vector<double> c = read_all(at, nc, var, n);
  flipped = c[1] < c[0];
  if (flipped) std::reverse(c.begin(), c.end());
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(c[i]) || (i > 0 && !(c[i] > c[i - 1])))
      at.fail("coordinate '" + dim + "' is not finite and strictly monotonic (at index " +
              std::to_string(flipped ? n - 1 - i : i) + ")");
  const double h = g.spacing(a), lo = g.origin[a] + h / 2, hi = g.origin[a] + g.length[a] - h / 2;
  const double tol = 1e-6 * h;
  if (c.front() > lo + tol || c.back() < hi - tol) {
    std::ostringstream s;
    s << "coordinate '" << dim << "' spans [" << c.front() << ", " << c.back()
      << "], which does not cover the cell centres [" << lo << ", " << hi << "] of axis " << a;
    at.fail(s.str());
  }
  return c;
}

void check_values(const Place& at, int nc, int var, const std::vector<double>& v, bool positive) {
  for (const char* packed : {"scale_factor", "add_offset"})
    if (nc_inq_att(nc, var, packed, nullptr, nullptr) == NC_NOERR)
      at.fail(std::string("packed values (") + packed + ") are not supported: write plain floats");
  double fill = 0;
  const bool has_fill = nc_get_att_double(nc, var, "_FillValue", &fill) == NC_NOERR;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i]) || (has_fill && v[i] == fill))
      at.fail("value " + std::to_string(i) + " is missing or not finite");
    if (positive && !(v[i] > 0))
      at.fail("value " + std::to_string(i) + " is " + std::to_string(v[i]) + ", must be > 0");
  }
}

}  // namespace

GridField::GridField(const std::string& file, const std::string& variable, const std::string& key,
                     const Grid& g, bool positive)
    : dims_(g.dims()) {
  const Place at{key, file, variable};
  NcFile f;
  if (int e = nc_open(file.c_str(), NC_NOWRITE, &f.id); e != NC_NOERR)
    throw io::ConfigError(key + ": cannot open NetCDF file '" + file + "' (" + nc_strerror(e) +
                          ")");
  int var = -1;
  if (nc_inq_varid(f.id, variable.c_str(), &var) != NC_NOERR)
    throw io::ConfigError(key + ": file '" + file + "' has no variable '" + variable +
                          "' (it has: " + variables_of(f.id) + ")");
  int ndims = 0;
  int dimids[NC_MAX_VAR_DIMS];
  nc_inq_varndims(f.id, var, &ndims);
  nc_inq_vardimid(f.id, var, dimids);
  if (ndims != dims_)
    at.fail("has " + std::to_string(ndims) + " dimensions, the grid " + std::to_string(dims_));
  std::array<int, 3> axis_of{-1, -1, -1};  // per file dimension
  std::array<std::string, 3> names;
  std::array<std::size_t, 3> len{};
  bool by_name = true;
  for (int d = 0; d < ndims; ++d) {
    char name[NC_MAX_NAME + 1];
    nc_inq_dimname(f.id, dimids[d], name);
    nc_inq_dimlen(f.id, dimids[d], &len[d]);
    names[d] = name;
    int coord = -1;
    nc_inq_varid(f.id, name, &coord);
    axis_of[d] = axis_by_name(f.id, coord, names[d]);
    by_name = by_name && axis_of[d] >= 0 && axis_of[d] < dims_;
  }
  for (int d = 0; d < ndims && !by_name; ++d) axis_of[d] = ndims - 1 - d;  // xarray's order
  std::size_t stride = 1, total = 1;
  for (int d = ndims - 1; d >= 0; --d) {
    const int a = axis_of[d];
    if (stride_[a] != 0) at.fail("two dimensions stand for the same axis");
    stride_[a] = stride;
    stride *= len[d];
    total *= len[d];
    coords_[a] = coordinate(at, f.id, names[d], len[d], g, a, flipped_[a]);
  }
  values_ = read_all(at, f.id, var, total);
  check_values(at, f.id, var, values_, positive);
  const auto [lo, hi] = std::minmax_element(values_.begin(), values_.end());
  min_ = *lo;
  max_ = *hi;
}

real GridField::at(const real x[3]) const {
  std::array<std::size_t, 3> i0{};
  std::array<double, 3> t{};
  for (int a = 0; a < dims_; ++a) {
    const std::vector<double>& c = coords_[a];
    const double y = std::clamp(static_cast<double>(x[a]), c.front(), c.back());
    const std::size_t n = c.size();
    std::size_t i = std::upper_bound(c.begin(), c.end(), y) - c.begin();
    i = std::min(std::max<std::size_t>(i, 1), n - 1) - 1;
    i0[a] = i;
    t[a] = (y - c[i]) / (c[i + 1] - c[i]);
  }
  double sum = 0;
  for (int corner = 0; corner < (1 << dims_); ++corner) {
    double w = 1;
    std::size_t off = 0;
    for (int a = 0; a < dims_; ++a) {
      const int up = (corner >> a) & 1;
      w *= up ? t[a] : 1 - t[a];
      const std::size_t i = i0[a] + up;
      off += (flipped_[a] ? coords_[a].size() - 1 - i : i) * stride_[a];
    }
    if (w != 0) sum += w * values_[off];
  }
  return static_cast<real>(sum);
}

}  // namespace staghorn::materials
