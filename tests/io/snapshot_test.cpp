#include "io/snapshot.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <netcdf.h>
#include <stdlib.h>  // mkdtemp

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "core/comm.hpp"
#include "core/error.hpp"

namespace staghorn::io {
namespace {

std::string broadcast(const Comm& comm, std::string s) {
  long long n = static_cast<long long>(s.size());
  MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm.get());
  s.resize(static_cast<std::size_t>(n));
  MPI_Bcast(s.data(), static_cast<int>(n), MPI_CHAR, 0, comm.get());
  return s;
}

Layout layout_of(const Decomposition& dec) {
  return {dec.local_cells(), {dec.halo(0), dec.halo(1), dec.halo(2)}};
}

std::vector<Location> locations(const Grid& grid) {
  std::vector<Location> out{Location::cell, Location::face_x};
  if (grid.active(1)) out.push_back(Location::face_y);
  if (grid.active(2)) out.insert(out.end(), {Location::face_z, Location::edge_xy, Location::node});
  return out;
}

std::vector<Field> make_fields(const Decomposition& dec, double fill) {
  std::vector<Field> out;
  for (const Location loc : locations(dec.grid())) {
    out.emplace_back("f_" + to_string(loc), loc, layout_of(dec), Backend::cpu, "K",
                     "test field at " + to_string(loc));
    out.back().from_host(std::vector<real>(out.back().layout().count(), fill));
  }
  return out;
}

bool owned(const Decomposition& dec, Location loc, int i, int j, int k) {
  const int idx[3] = {i, j, k};
  for (int a = 0; a < 3; ++a)
    if (idx[a] < 0 || idx[a] >= dec.owned_points(loc, a)) return false;
  return true;
}

// Unique per global point and location, exactly representable.
double expected(const Decomposition& dec, Location loc, int i, int j, int k) {
  const Grid& g = dec.grid();
  const Int3 o = dec.offset();
  const long long gi = o.x + i, gj = o.y + j, gk = o.z + k;
  return (gi + g.points(loc, 0) * (gj + (long long)g.points(loc, 1) * gk)) + 0.25 * int(loc);
}

// Calls visit(i, j, k, index) over the whole padded block, halos included.
template <class F>
void for_all(const Layout& l, F&& visit) {
  const Region r = l.all();
  for (int k = r.lo.z; k < r.hi.z; ++k)
    for (int j = r.lo.y; j < r.hi.y; ++j)
      for (int i = r.lo.x; i < r.hi.x; ++i) visit(i, j, k, l.index(i, j, k));
}

// Owned points get their unique value; everything else a value the file must never contain.
void fill_unique(const Decomposition& dec, Field& f) {
  std::vector<real> host = f.to_host();
  for_all(f.layout(), [&](int i, int j, int k, std::ptrdiff_t p) {
    host[p] = owned(dec, f.location(), i, j, k) ? expected(dec, f.location(), i, j, k) : -1e300;
  });
  f.from_host(host);
}

std::uint64_t bits(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Points (on any rank) that did not read back bit-identical, or halo points that were touched.
long long mismatches(const Decomposition& dec, const Field& f) {
  const std::vector<real> host = f.to_host();
  long long bad = 0;
  for_all(f.layout(), [&](int i, int j, int k, std::ptrdiff_t p) {
    if (owned(dec, f.location(), i, j, k))
      bad += bits(host[p]) != bits(expected(dec, f.location(), i, j, k));
    else
      bad += !std::isnan(host[p]);
  });
  return dec.comm().sum(bad);
}

template <class T>
std::vector<T*> pointers(std::vector<Field>& fields) {
  std::vector<T*> out;
  for (Field& f : fields) out.push_back(&f);
  return out;
}

class SnapshotTest : public ::testing::Test {
 protected:
  // A scratch directory that rank 0 makes and every rank shares.
  void SetUp() override {
    std::string dir;
    if (comm_.root()) {
      char pattern[] = "/tmp/staghorn_snapshot_XXXXXX";
      if (mkdtemp(pattern)) dir = pattern;
    }
    dir_ = broadcast(comm_, dir);
    ASSERT_FALSE(dir_.empty()) << "mkdtemp failed";
  }
  void TearDown() override {
    comm_.barrier();
    if (comm_.root() && !dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::string file(const std::string& name) const { return dir_ + "/" + name; }

  // Writes unique values, reads them into NaN-filled fields, and checks every point and the meta.
  void round_trip(const Grid& grid, const SnapshotMeta& meta, const std::string& path,
                  Int3 ranks = {0, 0, 0}) {
    write_unique(Decomposition(grid, Comm(), ranks, 1), path, meta);
    EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
    const SnapshotMeta got = expect_unique(Decomposition(grid, Comm(), ranks, 1), path);
    EXPECT_EQ(got.step, meta.step);
    EXPECT_EQ(bits(got.time), bits(meta.time));
    EXPECT_EQ(got.model, meta.model);
    EXPECT_EQ(got.config, meta.config);
    EXPECT_EQ(got.carried, meta.carried);
  }

  static void write_unique(const Decomposition& dec, const std::string& path,
                           const SnapshotMeta& meta) {
    std::vector<Field> out = make_fields(dec, 0.0);
    for (Field& f : out) fill_unique(dec, f);
    write_snapshot(path, dec, pointers<const Field>(out), meta);
  }

  static SnapshotMeta expect_unique(const Decomposition& dec, const std::string& path) {
    std::vector<Field> in = make_fields(dec, std::numeric_limits<double>::quiet_NaN());
    const SnapshotMeta got = read_snapshot(path, dec, pointers<Field>(in));
    for (const Field& f : in) EXPECT_EQ(mismatches(dec, f), 0) << f.name();
    return got;
  }

  Comm comm_;
  std::string dir_;
};

SnapshotMeta sample_meta() {
  SnapshotMeta m;
  m.step = 123456789012LL;  // beyond 32 bits
  m.time = 0.1 + 0.2;       // not a short decimal
  m.model = "diffusion";
  m.config = R"({"model": "diffusion", "grid": {"n": [8, 6, 4]}})";
  m.carried = {{"pt_cfl_scale", 0.125}, {"damping_Re", 0.1 + 0.7}};  // exact doubles, by name
  return m;
}

Grid grid_3d(bool periodic) {
  Grid g;
  g.n = {8, 6, 4};
  g.length = {2.0, 3.0, 1.5};
  g.origin = {-1.0, 0.5, 2.0};
  g.periodic = {periodic, periodic, periodic};
  g.units = "m";
  return g;
}

Grid grid_2d() {
  Grid g;
  g.n = {12, 8, 1};
  g.length = {1.2, 0.8, 1.0};
  g.periodic = {true, false, false};
  g.units = "km";
  return g;
}

// ---- The file as other readers see it (serial netCDF on rank 0) -------------------------------

std::size_t dim_length(int nc, const char* name) {
  int dim = -1;
  std::size_t n = 0;
  if (nc_inq_dimid(nc, name, &dim) != NC_NOERR) return 0;
  nc_inq_dimlen(nc, dim, &n);
  return n;
}

std::string text_att(int nc, int var, const char* name) {
  std::size_t n = 0;
  if (nc_inq_attlen(nc, var, name, &n) != NC_NOERR) return "<missing>";
  std::string s(n + 1, '\0');
  nc_get_att_text(nc, var, name, s.data());
  s.resize(n);
  return s;
}

std::vector<std::string> var_dims(int nc, const char* var_name) {
  int var = -1, ndims = 0;
  if (nc_inq_varid(nc, var_name, &var) != NC_NOERR) return {"<missing>"};
  nc_inq_varndims(nc, var, &ndims);
  std::vector<int> ids(ndims);
  nc_inq_vardimid(nc, var, ids.data());
  std::vector<std::string> out;
  for (int id : ids) {
    char name[NC_MAX_NAME + 1] = {};
    nc_inq_dimname(nc, id, name);
    out.push_back(name);
  }
  return out;
}

void expect_coordinate(int nc, const Grid& g, int axis, bool face) {
  const char* names[3] = {"x", "y", "z"};
  const std::string name = std::string(names[axis]) + (face ? "_face" : "");
  const Location loc = face ? Location(int(Location::face_x) + axis) : Location::cell;
  int var = -1;
  ASSERT_EQ(nc_inq_varid(nc, name.c_str(), &var), NC_NOERR) << name;
  std::vector<double> x(dim_length(nc, name.c_str()));
  ASSERT_EQ(x.size(), std::size_t(g.points(loc, axis))) << name;
  ASSERT_EQ(nc_get_var_double(nc, var, x.data()), NC_NOERR);
  for (std::size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(bits(x[i]), bits(g.coordinate(loc, axis, int(i)))) << name << "[" << i << "]";
  EXPECT_EQ(text_att(nc, var, "units"), g.units);
  EXPECT_EQ(text_att(nc, var, "long_name"),
            std::string(names[axis]) + " coordinate of cell " + (face ? "faces" : "centres"));
  const char* upper[3] = {"X", "Y", "Z"};
  EXPECT_EQ(text_att(nc, var, "axis"), upper[axis]);  // faces too: xgcm pairs them by axis
  double shift = 0;
  EXPECT_EQ(nc_get_att_double(nc, var, "c_grid_axis_shift", &shift), face ? NC_NOERR : NC_ENOTATT);
  if (face) {
    EXPECT_EQ(shift, -0.5);
  }
}

void expect_globals(int nc, const SnapshotMeta& meta) {
  EXPECT_EQ(text_att(nc, NC_GLOBAL, "Conventions"), "CF-1.8");
  EXPECT_EQ(text_att(nc, NC_GLOBAL, "title"), "Staghorn snapshot");
  EXPECT_EQ(text_att(nc, NC_GLOBAL, "model"), meta.model);
  EXPECT_EQ(text_att(nc, NC_GLOBAL, "staghorn_config"), meta.config);
  nc_type type = NC_NAT;
  std::size_t len = 0;
  ASSERT_EQ(nc_inq_att(nc, NC_GLOBAL, "staghorn_step", &type, &len), NC_NOERR);
  EXPECT_EQ(type, NC_INT64);
  int time = -1;
  double t = 0;
  ASSERT_EQ(nc_inq_varid(nc, "time", &time), NC_NOERR);
  ASSERT_EQ(nc_get_var_double(nc, time, &t), NC_NOERR);
  EXPECT_EQ(bits(t), bits(meta.time));
  EXPECT_EQ(text_att(nc, time, "long_name"), "model time");
  EXPECT_EQ(text_att(nc, time, "units"), meta.units.time);
  EXPECT_EQ(text_att(nc, time, "axis"), "<missing>");  // elapsed time, not a CF date axis
  int step = -1;
  long long s = -1;
  ASSERT_EQ(nc_inq_varid(nc, "step", &step), NC_NOERR);
  ASSERT_EQ(nc_get_var_longlong(nc, step, &s), NC_NOERR);
  EXPECT_EQ(s, meta.step);
}

void expect_fields(int nc, const Grid& g) {
  for (const Location loc : locations(g)) {
    const std::string name = "f_" + to_string(loc);
    std::vector<std::string> dims{"time"};
    for (int a = 2; a >= 0; --a)
      if (g.active(a))
        dims.push_back(std::string(1, "xyz"[a]) + (staggered(loc, a) ? "_face" : ""));
    EXPECT_EQ(var_dims(nc, name.c_str()), dims) << name;
    int var = -1;
    nc_type type = NC_NAT;
    ASSERT_EQ(nc_inq_varid(nc, name.c_str(), &var), NC_NOERR);
    nc_inq_vartype(nc, var, &type);
    EXPECT_EQ(type, sizeof(real) == sizeof(float) ? NC_FLOAT : NC_DOUBLE);  // fields as computed
    EXPECT_EQ(text_att(nc, var, "units"), "K");
    EXPECT_EQ(text_att(nc, var, "long_name"), "test field at " + to_string(loc));
    EXPECT_EQ(text_att(nc, var, "staghorn_location"), to_string(loc));
  }
}

void inspect(const std::string& path, const Grid& g, const SnapshotMeta& meta) {
  int nc = -1;
  ASSERT_EQ(nc_open(path.c_str(), NC_NOWRITE, &nc), NC_NOERR) << path;
  EXPECT_EQ(dim_length(nc, "time"), 1u);
  for (int a = 0; a < 3; ++a) {
    const std::string name(1, "xyz"[a]);
    const std::size_t faces = g.active(a) ? g.n[a] + (g.periodic[a] ? 0 : 1) : 0;
    EXPECT_EQ(dim_length(nc, name.c_str()), g.active(a) ? std::size_t(g.n[a]) : 0u) << name;
    EXPECT_EQ(dim_length(nc, (name + "_face").c_str()), faces) << name;
    if (!g.active(a)) continue;
    expect_coordinate(nc, g, a, false);
    expect_coordinate(nc, g, a, true);
  }
  expect_globals(nc, meta);
  expect_fields(nc, g);
  EXPECT_EQ(nc_close(nc), NC_NOERR);
}

// ---- Tests --------------------------------------------------------------------------------------

TEST_F(SnapshotTest, RoundTrip3DBounded) {
  const Grid g = grid_3d(false);
  SnapshotMeta meta = sample_meta();
  // Larger than HDF5's 64 KiB limit for attributes kept in the object header.
  meta.config = std::string(100000, 'c');
  const std::string path = file("bounded.nc");
  round_trip(g, meta, path);
  if (comm_.root()) inspect(path, g, meta);
}

TEST_F(SnapshotTest, SnapshotStampReadsStepAndTime) {
  const Grid g = grid_3d(false);
  const std::string path = file("stamp.nc");
  round_trip(g, sample_meta(), path);
  if (!comm_.root()) return;
  const std::optional<SnapshotStamp> s = snapshot_stamp(path);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->step, sample_meta().step);
  EXPECT_EQ(bits(s->time), bits(sample_meta().time));
  EXPECT_FALSE(snapshot_stamp(file("absent.nc")));
}

TEST_F(SnapshotTest, RoundTrip3DPeriodic) {
  const Grid g = grid_3d(true);
  const std::string path = file("periodic.nc");
  round_trip(g, sample_meta(), path);
  if (comm_.root()) inspect(path, g, sample_meta());
}

TEST_F(SnapshotTest, RoundTrip2DHasNoZ) {
  const Grid g = grid_2d();
  SnapshotMeta meta = sample_meta();
  meta.config.clear();  // an empty attribute must survive too
  const std::string path = file("plane.nc");
  round_trip(g, meta, path);
  if (comm_.root()) inspect(path, g, meta);
}

// Ranks stacked along z: the last one owns the closing z face, and only one rank per z-slab writes
// the x and y coordinates.
TEST_F(SnapshotTest, RoundTripSplitAlongZ) {
  const Grid g = grid_3d(false);
  const std::string path = file("slabs.nc");
  round_trip(g, sample_meta(), path, {1, 1, comm_.size()});
  if (comm_.root()) inspect(path, g, sample_meta());
}

TEST_F(SnapshotTest, RoundTrip1D) {
  Grid g;
  g.n = {16, 1, 1};
  const std::string path = file("line.nc");
  round_trip(g, sample_meta(), path);
  if (comm_.root()) inspect(path, g, sample_meta());
}

// A restart may run on another process grid, or another number of ranks, than the run it reads.
TEST_F(SnapshotTest, ReadsAcrossDecompositions) {
  const Grid g = grid_2d();
  const std::string path = file("across.nc");
  write_unique(Decomposition(g, Comm(), {comm_.size(), 1, 1}, 1), path, sample_meta());
  expect_unique(Decomposition(g, Comm(), {1, comm_.size(), 1}, 1), path);
}

TEST_F(SnapshotTest, ReadsWhatOneRankWrote) {
  const Grid g = grid_3d(false);
  const std::string path = file("single.nc");
  if (comm_.root()) write_unique(Decomposition(g, Comm(MPI_COMM_SELF), {0, 0, 0}, 1), path, {});
  comm_.barrier();
  expect_unique(Decomposition(g, Comm(), {0, 0, 0}, 1), path);
}

// Blocks that differ by a cell (7 x 5 x 3 over any rank count): each lands at its own offset, the
// closing faces included, read back on the same split and on one rank, and written by one rank.
TEST_F(SnapshotTest, UnevenBlocksLandInPlace) {
  Grid g;
  g.n = {7, 5, 3};
  g.periodic = {false, true, false};
  const std::string path = file("uneven.nc");
  round_trip(g, sample_meta(), path);
  if (comm_.root()) expect_unique(Decomposition(g, Comm(MPI_COMM_SELF), {0, 0, 0}, 1), path);
  const std::string single = file("uneven_single.nc");
  if (comm_.root()) write_unique(Decomposition(g, Comm(MPI_COMM_SELF), {0, 0, 0}, 1), single, {});
  comm_.barrier();
  expect_unique(Decomposition(g, Comm(), {comm_.size(), 1, 1}, 1), single);
}

TEST_F(SnapshotTest, MissingFileThrowsWithPath) {
  const Decomposition dec(grid_2d(), Comm(), {0, 0, 0}, 1);
  std::vector<Field> in = make_fields(dec, 0.0);
  const std::string path = file("does_not_exist.nc");
  try {
    read_snapshot(path, dec, pointers<Field>(in));
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open snapshot '" + path + "'"), std::string::npos)
        << e.what();
  }
}

TEST_F(SnapshotTest, OtherGridThrowsWithSizes) {
  const Decomposition written(grid_2d(), Comm(), {0, 0, 0}, 1);
  std::vector<Field> out = make_fields(written, 1.0);
  const std::string path = file("other.nc");
  write_snapshot(path, written, pointers<const Field>(out), sample_meta());

  Grid g = grid_2d();
  g.n.y = 16;
  const Decomposition dec(g, Comm(), {0, 0, 0}, 1);
  std::vector<Field> in = make_fields(dec, 0.0);
  try {
    read_snapshot(path, dec, pointers<Field>(in));
    FAIL() << "no exception";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find("'f_cell'"), std::string::npos) << what;
    EXPECT_NE(what.find("(time=1, y=8, x=12)"), std::string::npos) << what;
    EXPECT_NE(what.find("(time=1, y=16, x=12)"), std::string::npos) << what;
  }
}

TEST_F(SnapshotTest, MissingVariableThrows) {
  const Decomposition dec(grid_2d(), Comm(), {0, 0, 0}, 1);
  std::vector<Field> out = make_fields(dec, 1.0);
  const std::string path = file("few.nc");
  write_snapshot(path, dec, pointers<const Field>(out), sample_meta());
  Field extra("pressure", Location::cell, layout_of(dec), Backend::cpu);
  EXPECT_THROW(read_snapshot(path, dec, {&extra}), Error);
}

TEST_F(SnapshotTest, FailedWriteLeavesOldFile) {
  const Decomposition dec(grid_3d(false), Comm(), {0, 0, 0}, 1);
  std::vector<Field> out = make_fields(dec, 0.0);
  for (Field& f : out) fill_unique(dec, f);
  const std::string path = file("keep.nc");
  write_snapshot(path, dec, pointers<const Field>(out), sample_meta());

  // A field named like a coordinate fails in define mode, after the .tmp file exists.
  Field clash("x", Location::cell, layout_of(dec), Backend::cpu);
  std::vector<const Field*> bad = pointers<const Field>(out);
  bad.push_back(&clash);
  EXPECT_THROW(write_snapshot(path, dec, bad, SnapshotMeta{}), Error);
  comm_.barrier();
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));

  EXPECT_EQ(expect_unique(dec, path).step, sample_meta().step);
}

// A problem seen by one rank only must not leave the others waiting in a collective call.
TEST_F(SnapshotTest, OneRankFailingFailsAll) {
  const Decomposition dec(grid_2d(), Comm(), {0, 0, 0}, 1);
  const bool odd_one = comm_.rank() == comm_.size() - 1;
  const Layout layout = odd_one ? Layout{{1, 1, 1}, {0, 0, 0}} : layout_of(dec);
  Field f("lonely", Location::cell, layout, Backend::cpu);
  const std::string path = file("lonely.nc");
  bool threw = false;
  try {
    write_snapshot(path, dec, {&f}, sample_meta());
  } catch (const Error& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find("'lonely'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(comm_.sum(threw ? 1LL : 0LL), (long long)comm_.size());
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST_F(SnapshotTest, OverwriteReplacesFile) {
  const Decomposition dec(grid_2d(), Comm(), {0, 0, 0}, 1);
  std::vector<Field> out = make_fields(dec, 1.0);
  const std::string path = file("again.nc");
  SnapshotMeta meta = sample_meta();
  write_snapshot(path, dec, pointers<const Field>(out), meta);
  meta.step += 1;
  meta.time *= 2;
  write_snapshot(path, dec, pointers<const Field>(out), meta);
  const SnapshotMeta got = read_snapshot(path, dec, pointers<Field>(out));
  EXPECT_EQ(got.step, meta.step);
  EXPECT_EQ(got.time, meta.time);
}

TEST_F(SnapshotTest, UnwritableDirectoryThrowsOnEveryRank) {
  const Decomposition dec(grid_2d(), Comm(), {0, 0, 0}, 1);
  std::vector<Field> out = make_fields(dec, 1.0);
  const std::string path = file("no/such/dir.nc");
  bool threw = false;
  try {
    write_snapshot(path, dec, pointers<const Field>(out), sample_meta());
  } catch (const Error& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_EQ(comm_.sum(threw ? 1LL : 0LL), (long long)comm_.size());
}

}  // namespace
}  // namespace staghorn::io
