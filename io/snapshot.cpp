#include "io/snapshot.hpp"

#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <sys/resource.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"

namespace staghorn::io {
namespace {

const char* const kAxis[3] = {"x", "y", "z"};
const std::string kCarried = "staghorn_carried_";  // the global attributes of SnapshotMeta::carried
const char* const kAxisUpper[3] = {"X", "Y", "Z"};

void check(int code, const std::string& path, const std::string& call) {
  if (code != NC_NOERR)
    throw Error("snapshot '" + path + "': " + call + " failed: " + nc_strerror(code));
}

// Throws on every rank, with the message of the lowest failing rank, if `error` is set on any.
// netCDF's parallel calls are collective: a rank that left alone would leave the others waiting.
void agree(const Comm& comm, std::string error) {
  const int mine = error.empty() ? comm.size() : comm.rank();
  int first = 0;
  check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm.get()), "MPI_Allreduce");
  if (first == comm.size()) return;
  long long length = static_cast<long long>(error.size());
  check_mpi(MPI_Bcast(&length, 1, MPI_LONG_LONG, first, comm.get()), "MPI_Bcast");
  error.resize(static_cast<std::size_t>(length));
  check_mpi(MPI_Bcast(error.data(), static_cast<int>(length), MPI_CHAR, first, comm.get()),
            "MPI_Bcast");
  throw Error(error);
}

// Runs one step that may fail on some ranks only, then makes its outcome everyone's. Each
// collective netCDF call gets its own step, so no rank skips a collective the others enter.
template <class F>
void collectively(const Comm& comm, F&& step) {
  std::string error;
  try {
    step();
  } catch (const std::exception& e) {
    error = *e.what() ? e.what() : "unknown error";
  } catch (...) {
    error = "unknown error";
  }
  agree(comm, std::move(error));
}

// An open netCDF file, closed on scope exit. Every exit path is agreed on by all ranks (see
// `collectively`), so the collective close in the destructor is reached by all of them.
class NcFile {
 public:
  explicit NcFile(std::string path) : path_(std::move(path)) {}
  ~NcFile() {
    // An error is already propagating; abort discards a half-defined file.
    if (id_ >= 0) nc_abort(id_);
  }
  NcFile(const NcFile&) = delete;
  NcFile& operator=(const NcFile&) = delete;

  // Taken only once every rank holds the file: closing it is collective.
  void adopt(int id) { id_ = id; }
  int id() const { return id_; }
  const std::string& path() const { return path_; }
  void close() {
    const int id = id_;
    id_ = -1;
    check(nc_close(id), path_, "nc_close");
  }

 private:
  std::string path_;
  int id_ = -1;
};

std::string dim_name(Location loc, int axis) {
  return std::string(kAxis[axis]) + (staggered(loc, axis) ? "_face" : "");
}

// A location that is staggered along `axis` only (or nowhere), to ask the grid about points.
Location probe(int axis, bool face) {
  const Location faces[3] = {Location::face_x, Location::face_y, Location::face_z};
  return face ? faces[axis] : Location::cell;
}

// A field's variable in the file and this rank's part of it, in file order (time, z, y, x) over
// the active axes.
struct Slab {
  std::vector<std::string> dims{"time"};
  std::vector<std::size_t> sizes{1}, start{0}, count{1};
};

Slab slab_of(const Decomposition& dec, Location loc) {
  Slab s;
  for (int a = 2; a >= 0; --a) {
    if (!dec.grid().active(a)) continue;
    s.dims.push_back(dim_name(loc, a));
    s.sizes.push_back(static_cast<std::size_t>(dec.grid().points(loc, a)));
    s.start.push_back(static_cast<std::size_t>(dec.offset()[a]));
    s.count.push_back(static_cast<std::size_t>(dec.owned_points(loc, a)));
  }
  return s;
}

std::string extent(Int3 n) {
  return std::to_string(n.x) + "x" + std::to_string(n.y) + "x" + std::to_string(n.z);
}

// The owned points must fit the field's padded block (the closing face of a bounded axis sits in
// the high halo).
void check_field(const Decomposition& dec, const Field& f) {
  const Layout& l = f.layout();
  bool fits = l.n == dec.local_cells();
  for (int a = 0; a < 3; ++a) fits = fits && dec.owned_points(f.location(), a) <= l.n[a] + l.h[a];
  if (!fits)
    throw Error("snapshot: field '" + f.name() + "' has a local block of " + extent(l.n) +
                " cells with halo " + extent(l.h) + "; the decomposition needs " +
                extent(dec.local_cells()) + " cells and room in the high halo for closing faces");
}

// Calls visit(n, p) for each owned point: n counts in file order (x fastest), p is its index in
// the padded array.
template <class F>
void for_owned(const Decomposition& dec, const Field& f, F&& visit) {
  const Layout& l = f.layout();
  Int3 e;
  for (int a = 0; a < 3; ++a) e[a] = dec.owned_points(f.location(), a);
  std::size_t n = 0;
  for (int k = 0; k < e.z; ++k)
    for (int j = 0; j < e.y; ++j)
      for (int i = 0; i < e.x; ++i) visit(n++, l.index(i, j, k));
}

std::size_t owned_count(const Decomposition& dec, Location loc) {
  std::size_t n = 1;
  for (int a = 0; a < 3; ++a) n *= static_cast<std::size_t>(dec.owned_points(loc, a));
  return n;
}

std::vector<double> pack(const Decomposition& dec, const Field& f) {
  const std::vector<real> host = f.to_host();
  std::vector<double> owned(owned_count(dec, f.location()));
  for_owned(dec, f, [&](std::size_t n, std::ptrdiff_t p) { owned[n] = host[p]; });
  return owned;
}

void unpack(const Decomposition& dec, Field& f, const std::vector<double>& owned) {
  std::vector<real> host = f.to_host();
  for_owned(dec, f, [&](std::size_t n, std::ptrdiff_t p) { host[p] = owned[n]; });
  f.from_host(host);
}

// ---- Writing ------------------------------------------------------------------------------------

void put_text(const NcFile& file, int var, const char* name, const std::string& value) {
  check(nc_put_att_text(file.id(), var, name, value.size(), value.c_str()), file.path(),
        std::string("nc_put_att_text(") + name + ")");
}

void put_double(const NcFile& file, int var, const char* name, double value) {
  check(nc_put_att_double(file.id(), var, name, NC_DOUBLE, 1, &value), file.path(),
        std::string("nc_put_att_double(") + name + ")");
}

void put_global_attributes(const NcFile& file, const SnapshotMeta& meta) {
  put_text(file, NC_GLOBAL, "Conventions", "CF-1.8");
  put_text(file, NC_GLOBAL, "title", "Staghorn snapshot");
  put_text(file, NC_GLOBAL, "source", "Staghorn");
  put_text(file, NC_GLOBAL, "model", meta.model);
  check(nc_put_att_longlong(file.id(), NC_GLOBAL, "staghorn_step", NC_INT64, 1, &meta.step),
        file.path(), "nc_put_att_longlong(staghorn_step)");
  put_double(file, NC_GLOBAL, "staghorn_time", meta.time);
  put_text(file, NC_GLOBAL, "staghorn_config", meta.config);
  put_text(file, NC_GLOBAL, "staghorn_units", units_name(meta.units));
  for (const auto& [name, value] : meta.carried)
    put_double(file, NC_GLOBAL, (kCarried + name).c_str(), value);
}

// Fields are stored in the precision they are computed in (the values pass through double, which
// holds a float exactly); coordinates and time are always double.
constexpr nc_type kNcReal = sizeof(real) == sizeof(float) ? NC_FLOAT : NC_DOUBLE;

// Defines a variable that every rank writes in collective mode.
int define_var(const NcFile& file, const std::string& name, const std::vector<int>& dims,
               nc_type type = NC_DOUBLE) {
  int var = -1;
  check(nc_def_var(file.id(), name.c_str(), type, static_cast<int>(dims.size()), dims.data(), &var),
        file.path(), "nc_def_var(" + name + ")");
  check(nc_var_par_access(file.id(), var, NC_COLLECTIVE), file.path(),
        "nc_var_par_access(" + name + ")");
  return var;
}

// A coordinate (dimension and variable of one name) of the points of one kind along one axis.
struct Coordinate {
  int axis = 0;
  bool face = false;
  int var = -1;
};

// The variables a snapshot writes after its header is defined.
struct Vars {
  int time = -1, step = -1;
  std::vector<Coordinate> coordinates;
  std::vector<int> fields;
};

Coordinate define_coordinate(const NcFile& file, const Grid& grid, const UnitSystem& units,
                             int axis, bool face, std::map<std::string, int>& dims) {
  const std::string name = dim_name(probe(axis, face), axis);
  int dim = -1;
  check(nc_def_dim(file.id(), name.c_str(), grid.points(probe(axis, face), axis), &dim),
        file.path(), "nc_def_dim(" + name + ")");
  dims[name] = dim;
  const Coordinate c{axis, face, define_var(file, name, {dim})};
  put_text(file, c.var, "units", grid.units);
  put_text(file, c.var, "long_name",
           units.describe(
               std::string(kAxis[axis]) + " coordinate of cell " + (face ? "faces" : "centres"),
               grid.units));
  // Both kinds carry the axis, so xgcm (and SGRID readers) pair x_face with x; the shift says
  // faces sit half a cell below the centres of the same index.
  put_text(file, c.var, "axis", kAxisUpper[axis]);
  if (face) put_double(file, c.var, "c_grid_axis_shift", -0.5);
  return c;
}

// One coordinate per active axis and kind of point that some field uses.
std::vector<Coordinate> define_coordinates(const NcFile& file, const Grid& grid,
                                           const UnitSystem& units,
                                           const std::vector<const Field*>& fields,
                                           std::map<std::string, int>& dims) {
  std::vector<Coordinate> out;
  for (int a = 0; a < 3; ++a) {
    if (!grid.active(a)) continue;
    for (const bool face : {false, true}) {
      bool used = false;
      for (const Field* f : fields) used = used || staggered(f->location(), a) == face;
      if (used) out.push_back(define_coordinate(file, grid, units, a, face, dims));
    }
  }
  return out;
}

// Model time is elapsed time, not a date: a CF time axis (axis "T") needs units "s since DATE"
// and a calendar, which would make xarray decode it into dates that mean nothing here. A plain
// coordinate in the model's time unit keeps the exact values and passes CF-1.8 as it is.
void define_time(const NcFile& file, const UnitSystem& units, long long step,
                 std::map<std::string, int>& dims, Vars& vars) {
  // Length 1, not unlimited: fixed-size variables keep parallel writes simple (and contiguous).
  check(nc_def_dim(file.id(), "time", 1, &dims["time"]), file.path(), "nc_def_dim(time)");
  vars.time = define_var(file, "time", {dims["time"]});
  put_text(file, vars.time, "units", units.time);
  put_text(file, vars.time, "long_name", units.describe("model time", units.time));
  // int where it fits (as diagnostics.nc's step): the type every CF tool reads.
  const bool fits = step >= INT_MIN && step <= INT_MAX;
  vars.step = define_var(file, "step", {dims["time"]}, fits ? NC_INT : NC_INT64);
  put_text(file, vars.step, "units", "1");
  put_text(file, vars.step, "long_name", "time step number");
}

int define_field(const NcFile& file, const Decomposition& dec, const UnitSystem& units,
                 const Field& f, const std::map<std::string, int>& dims) {
  std::vector<int> ids;
  for (const std::string& name : slab_of(dec, f.location()).dims) ids.push_back(dims.at(name));
  const int var = define_var(file, f.name(), ids, kNcReal);
  // A checksum per chunk: bit-rot of a restart file is caught on reading even where the damaged
  // values would still be finite numbers.
  check(nc_def_var_fletcher32(file.id(), var, NC_FLETCHER32), file.path(),
        "nc_def_var_fletcher32(" + f.name() + ")");
  put_text(file, var, "units", f.units());
  put_text(file, var, "long_name", units.describe(f.long_name(), f.units()));
  put_text(file, var, "staghorn_location", to_string(f.location()));
  return var;
}

Vars define(const NcFile& file, const Decomposition& dec, const std::vector<const Field*>& fields,
            const SnapshotMeta& meta) {
  int old_mode = 0;
  // Every point is written, so prefilling with fill values would only cost time.
  check(nc_set_fill(file.id(), NC_NOFILL, &old_mode), file.path(), "nc_set_fill");
  put_global_attributes(file, meta);
  std::map<std::string, int> dims;
  Vars vars;
  define_time(file, meta.units, meta.step, dims, vars);
  vars.coordinates = define_coordinates(file, dec.grid(), meta.units, fields, dims);
  for (const Field* f : fields)
    vars.fields.push_back(define_field(file, dec, meta.units, *f, dims));
  return vars;
}

void put(const NcFile& file, int var, const std::string& name,
         const std::vector<std::size_t>& start, const std::vector<std::size_t>& count,
         const std::vector<double>& values) {
  check(nc_put_vara_double(file.id(), var, start.data(), count.data(), values.data()), file.path(),
        "nc_put_vara_double(" + name + ")");
}

// A field's values in its own type: a float variable written through the double API would refuse
// an infinite value (NC_ERANGE) where a broken state is exactly what a snapshot must show.
void put_field(const NcFile& file, int var, const std::string& name,
               const std::vector<std::size_t>& start, const std::vector<std::size_t>& count,
               const std::vector<double>& values) {
  if (kNcReal == NC_DOUBLE) return put(file, var, name, start, count, values);
  const std::vector<float> narrow(values.begin(), values.end());
  check(nc_put_vara_float(file.id(), var, start.data(), count.data(), narrow.data()), file.path(),
        "nc_put_vara_float(" + name + ")");
}

// Written by the ranks at the low end of the other axes only, so that no two ranks write the same
// points; the others take part in the collective call with nothing to write.
void write_coordinate(const NcFile& file, const Decomposition& dec, const Coordinate& c) {
  bool writer = true;
  for (int b = 0; b < 3; ++b) writer = writer && (b == c.axis || dec.coords()[b] == 0);
  const Location loc = probe(c.axis, c.face);
  const std::size_t start = writer ? dec.offset()[c.axis] : 0;
  const std::size_t count = writer ? dec.owned_points(loc, c.axis) : 0;
  std::vector<double> values(count + 1);  // never empty: a null buffer is not a valid argument
  for (std::size_t i = 0; i < count; ++i)
    values[i] = dec.grid().coordinate(loc, c.axis, static_cast<int>(start + i));
  put(file, c.var, dim_name(loc, c.axis), {start}, {count}, values);
}

void write_variables(const NcFile& file, const Decomposition& dec,
                     const std::vector<const Field*>& fields, const Vars& vars,
                     const SnapshotMeta& meta) {
  const Comm& comm = dec.comm();
  const std::size_t mine = comm.root() ? 1 : 0;
  collectively(comm, [&] { put(file, vars.time, "time", {0}, {mine}, {meta.time}); });
  collectively(comm, [&] {
    const std::size_t start = 0;
    check(nc_put_vara_longlong(file.id(), vars.step, &start, &mine, &meta.step), file.path(),
          "nc_put_vara_longlong(step)");
  });
  for (const Coordinate& c : vars.coordinates)
    collectively(comm, [&] { write_coordinate(file, dec, c); });
  for (std::size_t n = 0; n < fields.size(); ++n) {
    std::vector<double> owned;
    collectively(comm, [&] { owned = pack(dec, *fields[n]); });
    const Slab s = slab_of(dec, fields[n]->location());
    collectively(
        comm, [&] { put_field(file, vars.fields[n], fields[n]->name(), s.start, s.count, owned); });
  }
}

// MPI-IO reports a missing directory as "permission denied"; say what is wrong instead.
std::string missing_directory(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  return std::filesystem::is_directory(dir, ec) ? "" : " (no directory '" + dir.string() + "')";
}

// Refuses, before the file exists, a write that cannot fit the file system or the process's
// file-size limit: HDF5 does not recover from a write that fails half-way (its file stays open in
// a broken state and crashes the library's shutdown), so what can be checked is checked first.
void check_room(const std::string& path, double bytes) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  struct statvfs fs {};
  if (statvfs(dir.c_str(), &fs) == 0) {
    const double free = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
    if (free < bytes)
      throw NoRoom(std::string(std::strerror(ENOSPC)) + " (" +
                   std::to_string(static_cast<long long>(free)) + " bytes free in '" +
                   dir.string() + "', about " + std::to_string(static_cast<long long>(bytes)) +
                   " needed)");
  }
  struct rlimit limit {};
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      static_cast<double>(limit.rlim_cur) < bytes)
    throw NoRoom(std::string(std::strerror(EFBIG)) + " (the file-size limit is " +
                 std::to_string(static_cast<long long>(limit.rlim_cur)) + " bytes, about " +
                 std::to_string(static_cast<long long>(bytes)) + " needed)");
}

void write_file(const std::string& path, const Decomposition& dec,
                const std::vector<const Field*>& fields, const SnapshotMeta& meta) {
  const Comm& comm = dec.comm();
  NcFile file(path);
  int id = -1;
  collectively(comm, [&] {
    const int code =
        nc_create_par(path.c_str(), NC_NETCDF4 | NC_CLOBBER, comm.get(), MPI_INFO_NULL, &id);
    if (code != NC_NOERR)
      throw Error("snapshot '" + path + "': nc_create_par failed: " + nc_strerror(code) +
                  missing_directory(path));
  });
  file.adopt(id);
  Vars vars;
  // Definitions stay in memory until nc_enddef, which is the collective that writes them.
  collectively(comm, [&] { vars = define(file, dec, fields, meta); });
  collectively(comm, [&] { check(nc_enddef(file.id()), path, "nc_enddef"); });
  write_variables(file, dec, fields, vars, meta);
  collectively(comm, [&] { file.close(); });
}

// ---- Reading ------------------------------------------------------------------------------------

std::string describe(const std::vector<std::string>& names, const std::vector<std::size_t>& sizes) {
  std::string out = "(";
  for (std::size_t d = 0; d < names.size(); ++d)
    out += (d ? ", " : "") + names[d] + "=" + std::to_string(sizes[d]);
  return out + ")";
}

// The names and lengths of a variable's dims, as a Slab's dims and sizes.
Slab shape_of(const NcFile& file, int var, const std::string& name) {
  int ndims = 0;
  check(nc_inq_varndims(file.id(), var, &ndims), file.path(), "nc_inq_varndims(" + name + ")");
  std::vector<int> ids(static_cast<std::size_t>(ndims));
  check(nc_inq_vardimid(file.id(), var, ids.data()), file.path(), "nc_inq_vardimid(" + name + ")");
  Slab shape;
  shape.dims.clear();
  shape.sizes.clear();
  for (const int id : ids) {
    char dim[NC_MAX_NAME + 1] = {};
    std::size_t size = 0;
    check(nc_inq_dim(file.id(), id, dim, &size), file.path(), "nc_inq_dim(" + name + ")");
    shape.dims.push_back(dim);
    shape.sizes.push_back(size);
  }
  return shape;
}

// The variable of `f`, after checking that its dims are the ones this grid gives its location.
int find_field(const NcFile& file, const Decomposition& dec, const Field& f) {
  int var = -1;
  const int code = nc_inq_varid(file.id(), f.name().c_str(), &var);
  if (code == NC_ENOTVAR)
    throw Error("snapshot '" + file.path() + "' has no variable '" + f.name() + "'");
  check(code, file.path(), "nc_inq_varid(" + f.name() + ")");
  const Slab found = shape_of(file, var, f.name());
  const Slab want = slab_of(dec, f.location());
  if (found.dims != want.dims || found.sizes != want.sizes)
    throw Error("snapshot '" + file.path() + "': variable '" + f.name() + "' has dims " +
                describe(found.dims, found.sizes) + ", this grid expects " +
                describe(want.dims, want.sizes));
  check(nc_var_par_access(file.id(), var, NC_COLLECTIVE), file.path(),
        "nc_var_par_access(" + f.name() + ")");
  return var;
}

std::string get_text(const NcFile& file, const char* name) {
  std::size_t length = 0;
  check(nc_inq_attlen(file.id(), NC_GLOBAL, name, &length), file.path(),
        std::string("nc_inq_attlen(") + name + ")");
  std::string value(length + 1, '\0');  // room for a terminator, and never an empty buffer
  check(nc_get_att_text(file.id(), NC_GLOBAL, name, value.data()), file.path(),
        std::string("nc_get_att_text(") + name + ")");
  value.resize(length);
  return value;
}

// Every global attribute staghorn_carried_NAME, as (NAME, value).
std::vector<std::pair<std::string, double>> carried_of(const NcFile& file) {
  int count = 0;
  check(nc_inq_natts(file.id(), &count), file.path(), "nc_inq_natts");
  std::vector<std::pair<std::string, double>> out;
  for (int a = 0; a < count; ++a) {
    char name[NC_MAX_NAME + 1] = {};
    check(nc_inq_attname(file.id(), NC_GLOBAL, a, name), file.path(), "nc_inq_attname");
    const std::string attribute = name;
    if (attribute.compare(0, kCarried.size(), kCarried) != 0) continue;
    std::size_t length = 0;
    check(nc_inq_attlen(file.id(), NC_GLOBAL, name, &length), file.path(),
          "nc_inq_attlen(" + attribute + ")");
    if (length != 1)
      throw Error("snapshot '" + file.path() + "': " + attribute + " is not one number");
    double value = 0;
    check(nc_get_att_double(file.id(), NC_GLOBAL, name, &value), file.path(),
          "nc_get_att_double(" + attribute + ")");
    out.emplace_back(attribute.substr(kCarried.size()), value);
  }
  return out;
}

SnapshotMeta read_meta(const NcFile& file) {
  SnapshotMeta meta;
  check(nc_get_att_longlong(file.id(), NC_GLOBAL, "staghorn_step", &meta.step), file.path(),
        "nc_get_att_longlong(staghorn_step)");
  check(nc_get_att_double(file.id(), NC_GLOBAL, "staghorn_time", &meta.time), file.path(),
        "nc_get_att_double(staghorn_time)");
  meta.model = get_text(file, "model");
  meta.config = get_text(file, "staghorn_config");
  meta.carried = carried_of(file);
  return meta;
}

void read_field(const NcFile& file, const Decomposition& dec, int var, Field& f) {
  const Slab s = slab_of(dec, f.location());
  std::vector<double> owned(owned_count(dec, f.location()));
  collectively(dec.comm(), [&] {
    check(nc_get_vara_double(file.id(), var, s.start.data(), s.count.data(), owned.data()),
          file.path(), "nc_get_vara_double(" + f.name() + ")");
  });
  collectively(dec.comm(), [&] { unpack(dec, f, owned); });
}

}  // namespace

double snapshot_bytes(const Decomposition& dec, const std::vector<const Field*>& fields,
                      const SnapshotMeta& meta) {
  double bytes = 64.0 * 1024 + static_cast<double>(meta.config.size());
  for (const Field* f : fields) {
    double points = 1;
    for (int a = 0; a < 3; ++a) points *= dec.grid().points(f->location(), a);
    bytes += points * sizeof(real);
  }
  return bytes;
}

void write_snapshot(const std::string& path, const Decomposition& dec,
                    const std::vector<const Field*>& fields, const SnapshotMeta& meta) {
  const Comm& comm = dec.comm();
  collectively(comm, [&] {
    for (const Field* f : fields) check_field(dec, *f);
  });
  const std::string tmp = path + ".tmp";
  try {
    collectively(comm, [&] {
      if (comm.root()) check_room(tmp, snapshot_bytes(dec, fields, meta));
    });
  } catch (const Error& e) {  // every rank: agreed on
    throw NoRoom(e.what());
  }
  try {
    write_file(tmp, dec, fields, meta);
  } catch (...) {
    // Every rank gets here together; the partial file is worthless and `path` was not touched.
    if (comm.root()) std::remove(tmp.c_str());
    throw;
  }
  // The agreement's allreduce doubles as the barrier: no rank returns before the rename is done.
  collectively(comm, [&] {
    if (comm.root() && std::rename(tmp.c_str(), path.c_str()) != 0)
      throw Error("snapshot: cannot rename '" + tmp + "' onto '" + path +
                  "': " + std::strerror(errno));
  });
}

std::optional<SnapshotStamp> snapshot_stamp(const std::string& path) {
  int id = -1;
  if (nc_open(path.c_str(), NC_NOWRITE, &id) != NC_NOERR) return std::nullopt;
  SnapshotStamp s;
  const bool ok = nc_get_att_longlong(id, NC_GLOBAL, "staghorn_step", &s.step) == NC_NOERR &&
                  nc_get_att_double(id, NC_GLOBAL, "staghorn_time", &s.time) == NC_NOERR;
  nc_close(id);
  return ok ? std::optional<SnapshotStamp>(s) : std::nullopt;
}

SnapshotMeta read_snapshot(const std::string& path, const Decomposition& dec,
                           const std::vector<Field*>& fields) {
  const Comm& comm = dec.comm();
  collectively(comm, [&] {
    for (const Field* f : fields) check_field(dec, *f);
  });
  NcFile file(path);
  int id = -1;
  collectively(comm, [&] {
    const int code = nc_open_par(path.c_str(), NC_NOWRITE, comm.get(), MPI_INFO_NULL, &id);
    if (code == NC_NOERR) return;
    // MPI-IO reports a missing file as a bad file descriptor; say what is wrong instead.
    std::error_code ec;
    const bool missing = !std::filesystem::exists(path, ec) && !ec;
    throw Error("cannot open snapshot '" + path +
                "': " + (missing ? std::strerror(ENOENT) : nc_strerror(code)));
  });
  file.adopt(id);
  std::vector<int> vars;
  SnapshotMeta meta;
  collectively(comm, [&] {
    for (const Field* f : fields) vars.push_back(find_field(file, dec, *f));
    meta = read_meta(file);
  });
  for (std::size_t n = 0; n < fields.size(); ++n) read_field(file, dec, vars[n], *fields[n]);
  collectively(comm, [&] { file.close(); });
  return meta;
}

}  // namespace staghorn::io
