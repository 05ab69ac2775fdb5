// diagnostics.nc of a real run: one record at the start and every output.diagnostics_every steps,
// values that match the final snapshot computed independently, the CSV rows, the physics (mass
// kept, energy decaying), and a restart that continues the series as if uninterrupted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "io/snapshot.hpp"
#include "io/time_series.hpp"
#include "models/app/run.hpp"
#include "models/test_dirs.hpp"
#include "precision.hpp"

namespace staghorn::test {
namespace {

constexpr int kN = 12;
constexpr double kL = 2 * M_PI;

const char* kConfig = R"({
  "model": "mhd", "backend": "cpu",
  "grid": {"n": [12, 12, 12], "length": [6.283185307179586, 6.283185307179586, 6.283185307179586],
           "periodic": [true, true, true]},
  "time": {"dt": 0.05, "steps": 8},
  "output": {"every": 4, "diagnostics_every": 2},
  "log": {"interval": 100}, "metrics": {"copy_bandwidth": false},
  "mhd": {"nu": 0.02, "eta": 0.02,
          "initial": {"type": "abc_flow", "amplitude": 0.1, "field_amplitude": 0.05,
                      "wavenumber": [1, 0, 0]}}
})";

app::RunRequest request(const std::string& config, const std::string& out) {
  app::RunRequest r;
  r.config_path = config;
  r.output_dir = out;
  return r;
}

// The interior of lnrho, ux, uy, uz from a snapshot, read on this rank's block.
struct Cells {
  std::vector<double> rho, u2;
};

Cells read_cells(const std::string& path, const Decomposition& dec) {
  const Layout layout{dec.local_cells(), {dec.halo(0), dec.halo(1), dec.halo(2)}};
  std::vector<Field> f;
  for (const char* name : {"lnrho", "ux", "uy", "uz"})
    f.emplace_back(name, Location::cell, layout, Backend::cpu);
  io::read_snapshot(path, dec, {&f[0], &f[1], &f[2], &f[3]});
  std::vector<std::vector<real>> h;
  for (const Field& x : f) h.push_back(x.to_host());
  Cells c;
  for (int k = 0; k < layout.n.z; ++k)
    for (int j = 0; j < layout.n.y; ++j)
      for (int i = 0; i < layout.n.x; ++i) {
        const auto p = layout.index(i, j, k);
        c.rho.push_back(std::exp(h[0][p]));
        c.u2.push_back(h[1][p] * h[1][p] + h[2][p] * h[2][p] + h[3][p] * h[3][p]);
      }
  return c;
}

// The rows of diagnostics.csv, each by column name.
std::vector<std::map<std::string, double>> csv_rows(const std::string& path) {
  std::ifstream in(path);
  std::string header, line;
  std::getline(in, header);
  std::vector<std::map<std::string, double>> rows;
  while (std::getline(in, line)) {
    std::map<std::string, double> row;
    std::stringstream h(header), v(line);
    std::string name, value;
    while (std::getline(h, name, ',') && std::getline(v, value, ',')) row[name] = std::stod(value);
    rows.push_back(row);
  }
  return rows;
}

class MhdDiagnostics : public ::testing::Test {
 protected:
  const Comm comm;
  const TempDir dir{"mhd-diagnostics"};
  std::string config = dir.file("decay.json", kConfig);
  std::ostringstream log;
};

TEST_F(MhdDiagnostics, SeriesHoldsEveryNthStepAndMatchesTheSnapshot) {
  const std::string out = dir.path("run");
  app::run(request(config, out), comm, log);
  const io::SeriesData d = io::read_time_series(out + "/diagnostics.nc");
  ASSERT_EQ(d.step, (std::vector<long long>{0, 2, 4, 6, 8}));
  EXPECT_NEAR(d.time.back(), 0.4, 1e-12);
  for (const char* name : {"urms", "brms", "umax", "mass", "kinetic_energy", "magnetic_energy",
                           "max_div_u", "dt_limit", "iterations", "seconds"})
    EXPECT_EQ(d.values.count(name), 1u) << name;

  // Physics: mass kept (to the truncation error of the non-conservative ln rho equation), kinetic
  // plus magnetic energy falling at every record of the free decay.
  const auto& mass = d.values.at("mass");
  const auto& ek = d.values.at("kinetic_energy");
  const auto& em = d.values.at("magnetic_energy");
  EXPECT_NEAR(mass.back(), kL * kL * kL, 1e-6 * mass.front());
  for (std::size_t r = 1; r < d.records(); ++r)
    EXPECT_LT(ek[r] + em[r], ek[r - 1] + em[r - 1]) << "record " << r;
  EXPECT_GT(em.front(), 0);
  EXPECT_GT(d.values.at("dt_limit").back(), 0);

  // The last record against the final snapshot, summed here (all ranks' parts).
  const Decomposition dec(Grid{{kN, kN, kN}, {kL, kL, kL}, {0, 0, 0}, {true, true, true}}, comm,
                          {0, 0, 0}, 3);
  const Cells c = read_cells(out + "/snapshot_000008.nc", dec);
  double m = 0, ke = 0, u2max = 0;
  for (std::size_t n = 0; n < c.rho.size(); ++n) {
    m += c.rho[n];
    ke += 0.5 * c.rho[n] * c.u2[n];
    u2max = std::max(u2max, c.u2[n]);
  }
  const double dV = std::pow(kL / kN, 3);
  EXPECT_NEAR(mass.back(), comm.sum(m) * dV, test::roundoff(1e-12) * mass.back());
  EXPECT_NEAR(ek.back(), comm.sum(ke) * dV, test::roundoff(1e-12) * ek.back());
  EXPECT_NEAR(d.values.at("umax").back(), std::sqrt(comm.max(u2max)), test::roundoff(1e-14));

  // The CSV has a row where the series has a record, no other (no stale diagnostics between),
  // and each repeats its record exactly (both print all digits).
  const auto rows = csv_rows(out + "/diagnostics.csv");
  ASSERT_EQ(rows.size(), d.records());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    EXPECT_EQ(rows[r].at("step"), d.step[r]) << "row " << r;
    for (const char* name : {"urms", "brms", "mass", "kinetic_energy", "max_div_u", "seconds"})
      EXPECT_EQ(rows[r].at(name), d.values.at(name)[r]) << name << ", row " << r;
  }
}

TEST_F(MhdDiagnostics, RestartContinuesTheSeries) {
  app::run(request(config, dir.path("once")), comm, log);
  app::RunRequest first = request(config, dir.path("halves"));
  first.overrides = {"time.steps=6"};  // runs past the snapshot at 4: records 6 must be dropped
  app::run(first, comm, log);
  app::RunRequest second = request(config, dir.path("halves"));
  second.restart = dir.path("halves") + "/snapshot_000004.nc";
  app::run(second, comm, log);

  const io::SeriesData once = io::read_time_series(dir.path("once") + "/diagnostics.nc");
  const io::SeriesData halves = io::read_time_series(dir.path("halves") + "/diagnostics.nc");
  EXPECT_EQ(halves.step, once.step);
  EXPECT_EQ(halves.time, once.time);
  for (const char* name : {"urms", "brms", "mass", "kinetic_energy", "magnetic_energy"})
    EXPECT_EQ(halves.values.at(name), once.values.at(name)) << name;
}

TEST_F(MhdDiagnostics, ANewRunKeepsThePreviousSeriesAside) {
  const std::string out = dir.path("again");
  app::run(request(config, out), comm, log);
  app::RunRequest shorter = request(config, out);
  shorter.overrides = {"time.steps=2"};
  shorter.overwrite = true;  // the directory holds the first run's snapshots
  app::run(shorter, comm, log);
  EXPECT_EQ(io::read_time_series(out + "/diagnostics.nc").records(), 2u);
  EXPECT_EQ(io::read_time_series(out + "/diagnostics.nc.prev").records(), 5u);
}

}  // namespace
}  // namespace staghorn::test
