// Restart from a snapshot continues bit-identically: N steps in one go == N/2, restart, N/2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "io/snapshot.hpp"
#include "io/time_series.hpp"
#include "models/app/run.hpp"
#include "precision.hpp"
#include "models/test_dirs.hpp"
#include "test_support.hpp"

namespace staghorn::test {
namespace {

namespace fs = std::filesystem;

std::vector<real> read_H(const std::string& path, const Decomposition& dec) {
  const Layout layout{dec.local_cells(), {dec.halo(0), dec.halo(1), dec.halo(2)}};
  Field H("H", Location::cell, layout, Backend::cpu);
  io::read_snapshot(path, dec, {&H});
  return interior_values(H);
}

app::RunRequest request(const std::string& config, const std::string& out) {
  app::RunRequest r;
  r.config_path = config;
  r.output_dir = out;
  return r;
}

// A float state stalls near 1e-7 relative (tests/precision.hpp); the restart must be exact either
// way.
const char* const kTol = test::kSinglePrecision ? "1e-5" : "1e-9";

TEST(Restart, ContinuesBitIdentically) {
  const Comm comm;
  const TempDir dir("restart");
  const std::string config = dir.file("nonlinear.json", R"({
    "backend": "cpu",
    "grid": {"n": [33, 23, 1], "periodic": [true, false, false]},
    "time": {"dt": 5e-4, "steps": 8},
    "solver": {"tol": )" + std::string(kTol) + R"(, "ncheck": 7},
    "output": {"every": 4},
    "log": {"interval": 100},
    "metrics": {"copy_bandwidth": false},
    "diffusion": {"exponent": 3, "initial": {"type": "box", "background": 0.1, "sigma": 0.25}}
  })");
  std::ostringstream log;
  app::run(request(config, dir.path("once")), comm, log);

  app::RunRequest first = request(config, dir.path("halves"));
  first.overrides = {"time.steps=4"};
  app::run(first, comm, log);
  app::RunRequest second = request(config, dir.path("halves"));
  second.restart = dir.path("halves") + "/snapshot_000004.nc";
  const io::json m = app::run(second, comm, log);
  EXPECT_EQ(m["steps"].get<long long>(), 4);

  Grid g;
  g.n = {33, 23, 1};  // odd: on 2 and 3 ranks the blocks differ by a cell
  g.periodic = {true, false, false};
  const Decomposition dec(g, comm);
  const std::vector<real> a = read_H(dir.path("once") + "/snapshot_000008.nc", dec);
  const std::vector<real> b = read_H(dir.path("halves") + "/snapshot_000008.nc", dec);
  ASSERT_EQ(a.size(), b.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differ += (a[i] != b[i]);
  EXPECT_EQ(differ, 0u) << "values differ after restart";
  // The same times, and the ParaView index of the restarted run lists every snapshot of the
  // directory, as the uninterrupted run's does.
  EXPECT_EQ(io::read_snapshot(dir.path("halves") + "/snapshot_000008.nc", dec, {}).time,
            io::read_snapshot(dir.path("once") + "/snapshot_000008.nc", dec, {}).time);
  if (comm.root()) {
    const auto text = [&](const std::string& run) {
      std::ifstream in(dir.path(run) + "/snapshot.xmf");
      std::stringstream s;
      s << in.rdbuf();
      return s.str();
    };
    EXPECT_EQ(text("halves"), text("once"));
    EXPECT_NE(text("once").find("<Time Value=\"0.004\"/>"), std::string::npos) << text("once");
  }
  // A restart into a new directory starts its diagnostics with the restart's state.
  app::RunRequest elsewhere = request(config, dir.path("elsewhere"));
  elsewhere.restart = second.restart;
  elsewhere.overrides = {"time.steps=5"};
  app::run(elsewhere, comm, log);
  if (comm.root()) {
    const io::SeriesData nc = io::read_time_series(dir.path("elsewhere") + "/diagnostics.nc");
    ASSERT_GE(nc.records(), 1u);
    EXPECT_EQ(nc.step.front(), 4);
    std::ifstream csv(dir.path("elsewhere") + "/diagnostics.csv");
    std::string header, start;
    std::getline(csv, header);
    std::getline(csv, start);
    EXPECT_EQ(start.rfind("4,0.002,0,", 0), 0u) << start;
  }
  // And the run did something: the state changed from the initial box.
  const std::vector<real> h0 = read_H(dir.path("once") + "/snapshot_000000.nc", dec);
  EXPECT_NE(h0, a);
}

}  // namespace
}  // namespace staghorn::test
