// The materials module: volume fractions against exact areas and volumes, the mixing of the single
// stokes.inclusion to the bit, random placement, NetCDF fields, and every validation error.
#include "models/materials/materials.hpp"

#include <gtest/gtest.h>
#include <netcdf.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "models/materials/random_inclusions.hpp"
#include "test_support.hpp"

namespace staghorn::materials {
namespace {

using io::json;
using test::error_of;
const std::vector<Property> kProps = {Property::viscosity, Property::density};

Grid grid(int n, int dims, bool periodic = false) {
  Grid g;
  g.n = {n, dims >= 2 ? n : 1, dims >= 3 ? n : 1};
  for (int a = 0; a < dims; ++a) g.periodic[a] = periodic;
  return g;
}

Options options(const json& section) {
  io::Schema s;
  Options::add_to(s, "m", kProps);
  return Options::from(s.resolve({{"m", section}}), "m", kProps);
}

Materials build(const json& section, const Grid& g, int sub = 1) {
  return Materials(options(section), g, {1, 0, 0, 0}, sub);
}

// The phases' share of the domain: the density (1 inside, 0 outside) summed over the cells.
double volume(const Materials& m, const Grid& g) {
  double sum = 0;
  for (int k = 0; k < g.n.z; ++k)
    for (int j = 0; j < g.n.y; ++j)
      for (int i = 0; i < g.n.x; ++i) {
        const int idx[3] = {i, j, k};
        real x[3];
        for (int a = 0; a < 3; ++a) x[a] = g.coordinate(Location::cell, a, idx[a]);
        sum += m.mix(x, Property::density);
      }
  return sum / g.cells();
}

json phase(json p) {
  p["density"] = 1.0;
  return p;
}

// Errors of 1, 4 and 16 samples per axis against the exact fraction: they fall, and 16 is close.
void expect_converges(const json& p, const Grid& g, double exact) {
  double last = 1;
  for (int s : {1, 4, 16}) {
    const double err = std::fabs(volume(build({{"phases", {phase(p)}}}, g, s), g) - exact);
    EXPECT_LT(err, last) << p.dump() << " s = " << s;
    last = err;
  }
  EXPECT_LT(last, 2e-4) << p.dump();
}

TEST(Fractions, CircleEllipseBoxConvergeToTheirAreas) {
  const Grid g = grid(32, 2);
  expect_converges({{"shape", "circle"}, {"radius", 0.3}, {"center", {0.47, 0.52, 0}}}, g,
                   M_PI * 0.09);
  expect_converges({{"shape", "ellipse"},
                    {"semi_axes", {0.35, 0.15, 1}},
                    {"rotation", {30, 0, 0}},
                    {"center", {0.51, 0.48, 0}}},
                   g, M_PI * 0.35 * 0.15);
  expect_converges(
      {{"shape", "box"}, {"lo", {0.3, 0.35, 0}}, {"hi", {0.7, 0.6, 0}}, {"rotation", {20, 0, 0}}},
      g, 0.4 * 0.25);
  const double layer = volume(
      build({{"phases",
              {phase({{"shape", "layer"}, {"normal", {0, 2, 0}}, {"from", 0.25}, {"to", 0.5}})}}},
            g),
      g);
  EXPECT_NEAR(layer, 0.25, 1e-12);
}

TEST(Fractions, SphereAndRotatedEllipsoidIn3D) {
  const Grid g = grid(24, 3);
  const double sphere =
      volume(build({{"phases", {phase({{"shape", "sphere"}, {"radius", 0.3}})}}}, g, 4), g);
  EXPECT_NEAR(sphere, 4.0 / 3 * M_PI * 0.027, 2e-3);
  const double ellipsoid = volume(build({{"phases",
                                          {phase({{"shape", "ellipsoid"},
                                                  {"semi_axes", {0.4, 0.2, 0.15}},
                                                  {"rotation", {30, 20, 10}}})}}},
                                        g, 4),
                                  g);
  EXPECT_NEAR(ellipsoid, 4.0 / 3 * M_PI * 0.4 * 0.2 * 0.15, 2e-3);
}

// Painting order: a later phase covers an earlier one.
TEST(Fractions, LaterPhasesPaintOverEarlierOnes) {
  const Grid g = grid(16, 2);
  const Materials m =
      build({{"phases",
              {{{"shape", "box"}, {"lo", {0, 0, 0}}, {"hi", {1, 0.5, 0}}, {"viscosity", 10.0}},
               {{"shape", "circle"}, {"radius", 0.2}, {"viscosity", 0.1}}}}},
            g);
  const real inside[3] = {0.5, 0.45, 0}, box[3] = {0.1, 0.1, 0}, matrix[3] = {0.1, 0.9, 0};
  EXPECT_DOUBLE_EQ(m.mix(inside, Property::viscosity), 0.1);
  EXPECT_DOUBLE_EQ(m.mix(box, Property::viscosity), 10);
  EXPECT_DOUBLE_EQ(m.mix(matrix, Property::viscosity), 1);
}

// The single inclusion as Stokes computed it before the module: the same bits.
TEST(Fractions, SingleInclusionMixesAsBefore) {
  const Grid g = grid(20, 2, true);
  const real mu0 = 1.3, mui = 7e-4, rho0 = 0.2, rhoi = 3.1, r = 0.31, c[3] = {0.9, 0.2, 0};
  for (int s : {1, 3, 8}) {
    const Materials m(options({{"phases",
                                {{{"shape", "sphere"},
                                  {"radius", r},
                                  {"center", {c[0], c[1], 0}},
                                  {"viscosity", mui},
                                  {"density", rhoi}}}}}),
                      g, {mu0, rho0, 0, 0}, s);
    for (int j = 0; j < g.n.y; ++j)
      for (int i = 0; i < g.n.x; ++i) {
        const real x[3] = {(i + real(0.5)) / g.n.x, (j + real(0.5)) / g.n.y, 0.5};
        int in = 0;
        for (int b = 0; b < s; ++b)
          for (int a = 0; a < s; ++a) {
            const int q[2] = {a, b};
            real r2 = 0;
            for (int ax = 0; ax < 2; ++ax) {
              real d = x[ax] + ((q[ax] + real(0.5)) / s - real(0.5)) * g.spacing(ax) - c[ax];
              d -= g.length[ax] * std::round(d / g.length[ax]);
              r2 += d * d;
            }
            in += r2 < r * r;
          }
        const real f = real(in) / (s * s);
        EXPECT_EQ(m.mix(x, Property::viscosity), 1 / (f / mui + (1 - f) / mu0));
        EXPECT_EQ(m.mix(x, Property::density), f * rhoi + (1 - f) * rho0);
      }
  }
}

PhaseOptions random_phase(int count, std::uint64_t seed, real gap) {
  json p = {{"shape", "random_inclusions"}, {"count", count}, {"radius_min", 0.03},
            {"radius_max", 0.06},           {"seed", seed},   {"gap", gap}};
  return options({{"phases", {p}}}).phases[0];
}

TEST(RandomInclusions, DoNotOverlapAndRepeatWithTheSeed) {
  for (bool periodic : {false, true}) {
    const Grid g = grid(64, 2, periodic);
    const std::vector<Body> a = random_inclusions(random_phase(46, 7, 0.01), g);
    ASSERT_EQ(a.size(), 46u);
    for (std::size_t i = 0; i < a.size(); ++i) {
      for (int ax = 0; ax < 2 && !periodic; ++ax) {  // inside the bounded domain
        EXPECT_GE(a[i].centre[ax] - a[i].half[0], 0);
        EXPECT_LE(a[i].centre[ax] + a[i].half[0], 1);
      }
      for (std::size_t j = 0; j < i; ++j) {
        real d2 = 0;
        for (int ax = 0; ax < 2; ++ax) {
          const real d = displacement(g, ax, a[i].centre[ax], a[j].centre[ax]);
          d2 += d * d;
        }
        EXPECT_GE(std::sqrt(d2), a[i].half[0] + a[j].half[0] + 0.01);
      }
    }
    const std::vector<Body> b = random_inclusions(random_phase(46, 7, 0.01), g);
    const std::vector<Body> c = random_inclusions(random_phase(46, 8, 0.01), g);
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].centre, b[i].centre);
    EXPECT_NE(a[0].centre, c[0].centre);
  }
}

TEST(RandomInclusions, TooManyFailNamingTheKey) {
  const std::string e =
      error_of([&] { random_inclusions(random_phase(100, 1, 0.02), grid(64, 2)); });
  EXPECT_NE(e.find("m.phases[0].count: placed only"), std::string::npos) << e;
}

// More than the domain could hold, whatever the places: refused before any is placed.
TEST(RandomInclusions, MoreThanTheVolumeFailAtOnce) {
  const std::string e =
      error_of([&] { random_inclusions(random_phase(400, 1, 0.02), grid(64, 2)); });
  EXPECT_NE(e.find("m.phases[0].count: 400 inclusions (radius 0.03 to 0.06, gap 0.02) take a "
                   "volume of 3.90345, more than the domain's 1.0404: they cannot fit"),
            std::string::npos)
      << e;
}

// A NetCDF file as xarray writes a field indexed [y, x]: dimensions (y, x), 1-D coordinate
// variables of the same names, _FillValue NaN; here y descends.
std::string write_file(const std::string& name, const std::vector<double>& xs,
                       const std::vector<double>& ys,
                       const std::function<double(double, double)>& f, const char* var = "k") {
  int nc, dx, dy, vx, vy, vk;
  EXPECT_EQ(nc_create(name.c_str(), NC_CLOBBER | NC_NETCDF4, &nc), NC_NOERR);
  nc_def_dim(nc, "y", ys.size(), &dy);
  nc_def_dim(nc, "x", xs.size(), &dx);
  nc_def_var(nc, "x", NC_DOUBLE, 1, &dx, &vx);
  nc_def_var(nc, "y", NC_DOUBLE, 1, &dy, &vy);
  const int dims[2] = {dy, dx};
  nc_def_var(nc, var, NC_DOUBLE, 2, dims, &vk);
  const double nan = std::nan("");
  nc_put_att_double(nc, vk, "_FillValue", NC_DOUBLE, 1, &nan);
  nc_enddef(nc);
  nc_put_var_double(nc, vx, xs.data());
  nc_put_var_double(nc, vy, ys.data());
  std::vector<double> v;
  for (double y : ys)
    for (double x : xs) v.push_back(f(x, y));
  nc_put_var_double(nc, vk, v.data());
  nc_close(nc);
  return name;
}

std::vector<double> axis(int n, double lo, double hi) {
  std::vector<double> c(n);
  for (int i = 0; i < n; ++i) c[i] = lo + (hi - lo) * i / (n - 1);
  return c;
}

json from_file(const std::string& file, const char* var = "k") {
  return {{"file", file}, {"variables", {{"density", var}}}};
}

TEST(File, LinearFieldIsExactAndDescendingAxesWork) {
  const Grid g = grid(16, 2);
  std::vector<double> ys = axis(7, 1.05, -0.1);  // descending, coarser than the grid
  const auto lin = [](double x, double y) { return 2 + 3 * x - 5 * y; };
  const std::string f = write_file("linear.nc", axis(11, -0.02, 1.0), ys, lin);
  const Materials m = build(from_file(f), g);
  for (int j = 0; j < g.n.y; ++j)
    for (int i = 0; i < g.n.x; ++i) {
      const real x[3] = {(i + 0.5) / 16, (j + 0.5) / 16, 0};
      EXPECT_NEAR(m.mix(x, Property::density), lin(x[0], x[1]), 1e-13);
    }
  // A phase over the file keeps the file's value where it sets no density.
  const Materials p =
      build({{"file", f},
             {"variables", {{"density", "k"}}},
             {"phases", {{{"shape", "circle"}, {"radius", 0.2}, {"viscosity", 2}}}}},
            g);
  const real c[3] = {0.5, 0.5, 0};
  EXPECT_NEAR(p.mix(c, Property::density), lin(0.5, 0.5), 1e-13);
  EXPECT_DOUBLE_EQ(p.mix(c, Property::viscosity), 2);
}

std::string config_error(const json& section, const Grid& g) {
  return error_of([&] { build(section, g); });
}

void expect_error(const json& section, const std::string& want, const Grid& g = grid(16, 2)) {
  const std::string e = config_error(section, g);
  EXPECT_NE(e.find(want), std::string::npos) << "got: " << e << "\nwanted: " << want;
}

TEST(Validation, FileErrorsNameKeyFileAndVariable) {
  const auto ok = [](double x, double y) { return 1 + x + y; };
  const std::string good = write_file("good.nc", axis(5, 0, 1), axis(5, 0, 1), ok);
  expect_error(from_file("missing.nc"), "m.file: 'missing.nc' does not exist");
  expect_error(from_file(good, "rho"),
               "m.variables.density: file 'good.nc' has no variable 'rho' (it has: x, y, k)");
  write_file("short.nc", axis(5, 0.2, 1), axis(5, 0, 1), ok);
  expect_error(from_file("short.nc"),
               "m.variables.density: file 'short.nc', variable 'k': coordinate 'x' spans [0.2, 1]");
  write_file("zigzag.nc", {0, 0.5, 0.4, 1}, axis(5, 0, 1), ok);
  expect_error(from_file("zigzag.nc"), "coordinate 'x' is not finite and strictly monotonic");
  write_file("nan.nc", axis(5, 0, 1), axis(5, 0, 1),
             [](double x, double y) { return x > 0.6 && y > 0.6 ? std::nan("") : 1.0; });
  expect_error(from_file("nan.nc"), "variable 'k': value 18 is missing or not finite");
  write_file("negative.nc", axis(5, 0, 1), axis(5, 0, 1), [](double x, double) { return x - 0.5; });
  expect_error({{"file", "negative.nc"}, {"variables", {{"viscosity", "k"}}}},
               "m.variables.viscosity: file 'negative.nc', variable 'k': value 0 is -0.5");
  expect_error(from_file(good), "variable 'k': has 2 dimensions, the grid 3", grid(8, 3));
  expect_error({{"file", good}}, "m.variables: m.file is set but no property is read from it");
}

TEST(Validation, GeometryErrorsNameTheKey) {
  expect_error({{"phases", {{{"shape", "circle"}, {"radius", 0.1}, {"center", {1.5, 0.5, 0}}}}}},
               "m.phases[0]: the shape lies outside the domain [0, 1] x [0, 1]");
  expect_error({{"phases", {{{"shape", "layer"}, {"normal", {0, 1, 0}}, {"from", 2}, {"to", 3}}}}},
               "m.phases[0]: the layer lies outside the domain");
  expect_error({{"phases", {{{"shape", "box"}, {"lo", {0.5, 0, 0}}, {"hi", {0.4, 1, 0}}}}}},
               "m.phases[0].hi[0]: must be above lo[0]");
  expect_error({{"phases", {{{"shape", "circle"}}}}}, "m.phases[0].radius: needed by shape circle");
  expect_error(
      {{"phases", {{{"shape", "box"}, {"radius", 0.1}, {"lo", {0, 0, 0}}, {"hi", {1, 1, 1}}}}}},
      "m.phases[0].radius: not a key of shape box");
  expect_error({{"phases",
                 {{{"shape", "ellipse"}, {"semi_axes", {0.1, 0.2, 1}}, {"rotation", {0, 10, 0}}}}}},
               "m.phases[0].rotation: a 2-D grid rotates about z only");
  expect_error({{"phases", {{{"shape", "layer"}, {"normal", {0, 0, 1}}, {"from", 0}, {"to", 1}}}}},
               "m.phases[0].normal: must not be zero");
  expect_error({{"phases", {{{"shape", "random_inclusions"}, {"count", 3}, {"radius_min", 0.6}}}}},
               "m.phases[0].radius_max: a sphere of diameter");
}

TEST(Validation, SchemaNamesListElements) {
  expect_error({{"phases", {{{"shape", "circle"}, {"radius", -1}}}}},
               "m.phases[0].radius: must be > 0, got -1");
  expect_error({{"phases", {{{"shape", "circle"}, {"radiuss", 1}}}}},
               "m.phases[0].radiuss: unknown key (did you mean m.phases[0].radius?)");
  expect_error({{"phases", {{{"shape", "circle"}, {"radius", 0.1}, {"viscosity", 0}}}}},
               "m.phases[0].viscosity: must be > 0");
  expect_error({{"phases", {3}}}, "m.phases[0]: expected an object");
  expect_error({{"phases", {{"shape", "blob"}}}}, "m.phases: expected an array of objects");
}

}  // namespace
}  // namespace staghorn::materials
