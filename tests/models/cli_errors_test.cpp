// Bad input reaches the user as a clear message naming the problem, a non-zero exit code, and an
// output directory left exactly as it was. Runs the staghorn executable as a user would.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

struct Result {
  int code;
  std::string output;
};

Result run(const std::string& args) {
  const std::string cmd = std::string(STAGHORN_BIN) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    files[e.path().filename().string()] = s.str();
  }
  return files;
}

class CliErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("staghorn-cli-" + std::to_string(::getpid()));
    fs::create_directories(out());
    // What an earlier run left: must survive every failed start untouched.
    std::ofstream(out() / "snapshot_000000.nc") << "precious earlier result";
    std::ofstream(out() / "metrics.jsonl") << "{\"earlier\": true}\n";
    before_ = snapshot(out());
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path out() const { return root_ / "out"; }
  std::string config(const std::string& text) {
    const fs::path p = root_ / ("c" + std::to_string(++count_) + ".json");
    std::ofstream(p) << text;
    return p.string();
  }
  // Runs `staghorn run` on a config, expects `code` and `message` in the output, and an unchanged
  // output directory.
  void expect_failure(const std::string& cfg_args, int code, const std::string& message) {
    const Result r = run("run " + cfg_args + " --output " + out().string());
    EXPECT_EQ(r.code, code) << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << "expected \"" << message << "\" in:\n"
                                                         << r.output;
    EXPECT_EQ(snapshot(out()), before_)
        << "output directory changed by a failed start: " << cfg_args;
  }
  const std::string small = R"("grid": {"n": [16, 16, 1]}, "time": {"steps": 2})";

 private:
  fs::path root_;
  std::map<std::string, std::string> before_;
  int count_ = 0;
};

TEST_F(CliErrors, UnknownTopLevelKey) {
  expect_failure(config(R"({"gird": {"n": [8, 8, 1]}})"), 1,
                 "gird: unknown key (did you mean grid?)");
}

TEST_F(CliErrors, UnknownNestedKeyWithSuggestion) {
  expect_failure(config(R"({"grid": {"nn": [8, 8, 1]}})"), 1,
                 "grid.nn: unknown key (did you mean grid.n?)");
}

TEST_F(CliErrors, WrongType) {
  expect_failure(config(R"({"time": {"dt": "fast"}})"), 1,
                 "time.dt: expected a number, got \"fast\"");
}

TEST_F(CliErrors, FloatForInteger) {
  expect_failure(config(R"({"time": {"steps": 2.5}})"), 1, "time.steps: expected an integer");
}

TEST_F(CliErrors, NegativeSize) {
  expect_failure(config(R"({"grid": {"n": [-4, 8, 1]}})"), 1, "grid.n[0]: must be >= 1, got -4");
}

TEST_F(CliErrors, ZeroSize) {
  expect_failure(config(R"({"grid": {"n": [8, 8, 0]}})"), 1, "grid.n[2]: must be >= 1, got 0");
}

TEST_F(CliErrors, ArrayOfWrongLength) {
  expect_failure(config(R"({"grid": {"n": [8, 8]}})"), 1,
                 "grid.n: expected an array of 3 integers");
}

TEST_F(CliErrors, OutOfRange) {
  expect_failure(config(R"({"solver": {"cfl": 2}})"), 1, "solver.cfl: must be <= 1, got 2");
}

TEST_F(CliErrors, NotOneOfTheChoices) {
  expect_failure(config(R"({"diffusion": {"boundary": {"x_lo": {"type": "robin"}}}})"), 1,
                 "diffusion.boundary.x_lo.type: must be one of dirichlet, neumann, got \"robin\"");
}

TEST_F(CliErrors, UnknownModel) {
  expect_failure(config(R"({"model": "magic"})"), 1,
                 "model: unknown model \"magic\" (available: diffusion");
}

TEST_F(CliErrors, MissingFile) {
  expect_failure("/nonexistent/model.json", 1,
                 "config file '/nonexistent/model.json': cannot be opened");
}

TEST_F(CliErrors, MalformedJson) {
  expect_failure(config("{\n  \"grid\": {\"n\": [8, 8, 1],\n}"), 1, "malformed JSON at line 3");
}

TEST_F(CliErrors, ImpossibleProcessGrid) {
  expect_failure(config(R"({"decomposition": {"dims": [2, 1, 1]}})"), 1,
                 "process grid 2x1x1 does not match 1 ranks");
}

TEST_F(CliErrors, MissingRestartFile) {
  expect_failure(config("{" + small + "}") + " --restart /nonexistent/snap.nc", 1,
                 "restart: snapshot '/nonexistent/snap.nc' does not exist");
}

TEST_F(CliErrors, BadOverride) {
  expect_failure(config("{}") + " --set time.dt=-1", 1, "time.dt: must be > 0, got -1");
  // A malformed --set is a command-line error (exit 2), like --set without a value.
  expect_failure(config("{}") + " --set nothing", 2, "--set nothing: expected path=value");
}

TEST_F(CliErrors, BadCommandLine) {
  const Result r = run("run");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("run needs a CONFIG file"), std::string::npos) << r.output;
  EXPECT_EQ(run("frobnicate x.json").code, 2);
  EXPECT_EQ(run("run x.json --fast").code, 2);
}

// A run that starts but cannot converge stops with exit code 3, names the last good snapshot and
// keeps it.
TEST_F(CliErrors, NonConvergenceKeepsLastGoodSnapshot) {
  const fs::path fresh = out() / "fresh";
  const std::string cfg = config(R"({"backend": "cpu", "grid": {"n": [16, 16, 1]},
      "time": {"dt": 1.0, "steps": 3}, "solver": {"max_iter": 2, "ncheck": 1},
      "metrics": {"copy_bandwidth": false}})");
  const Result r = run("run " + cfg + " --output " + fresh.string());
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("not converged after 2 iterations"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("last good snapshot is '" + (fresh / "snapshot_000000.nc").string()),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(fs::exists(fresh / "snapshot_000000.nc"));
  EXPECT_FALSE(fs::exists(fresh / "snapshot_000001.nc"));
}

// NaN in a run: D = H^3 overflows for a huge initial value; the run stops with exit code 3.
TEST_F(CliErrors, NanStopsTheRun) {
  const fs::path fresh = out() / "nan";
  const std::string cfg = config(R"({"backend": "cpu", "grid": {"n": [16, 16, 1]},
      "time": {"steps": 2}, "metrics": {"copy_bandwidth": false},
      "diffusion": {"exponent": 3, "initial": {"amplitude": 1e300}}})");
  const Result r = run("run " + cfg + " --output " + fresh.string());
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("residual of H is nan"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(fresh / "snapshot_000001.nc"));
}

TEST(Cli, HelpVersionDescribeAndCheck) {
  EXPECT_EQ(run("--help").code, 0);
  const Result v = run("--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.output.rfind("staghorn ", 0), 0u) << v.output;
  const Result d = run("describe diffusion");
  EXPECT_EQ(d.code, 0);
  EXPECT_NE(d.output.find("diffusion.exponent (number, default 0.0"), std::string::npos)
      << d.output;
  EXPECT_NE(d.output.find("solver.tol"), std::string::npos);
}

}  // namespace

namespace {

// Five different mistakes in one config: all five are reported by one run, with their paths.
TEST_F(CliErrors, EveryConfigErrorInOnePass) {
  const std::string cfg = config(R"({"backend": "gpu", "grid": {"n": [16, 16, 1], "nn": 3},
      "time": {"dt": "fast", "steps": -1}, "diffusion": {"D00": 1.0}})");
  expect_failure(cfg, 1, "5 errors in the configuration:");
  const Result r = run("check " + cfg);
  EXPECT_EQ(r.code, 1);
  for (const char* message :
       {"backend: must be one of auto, cpu, cuda, got \"gpu\"", "grid.nn: unknown key",
        "time.dt: expected a number, got \"fast\" (string)", "time.steps: must be >= 0, got -1",
        "diffusion.D00: unknown key (did you mean diffusion.D0?)"})
    EXPECT_NE(r.output.find(message), std::string::npos) << message << " not in:\n" << r.output;
}

TEST(Cli, CheckPrintsTheSummaryAndTheConfigOnlyWhenAsked) {
  const fs::path cfg = fs::temp_directory_path() / ("staghorn-check-" + std::to_string(::getpid()));
  std::ofstream(cfg) << R"({"backend": "cpu", "grid": {"n": [16, 16, 1]}})";
  const Result plain = run("check " + cfg.string());
  EXPECT_EQ(plain.code, 0) << plain.output;
  EXPECT_EQ(plain.output.rfind("model diffusion, backend cpu", 0), 0u) << plain.output;
  EXPECT_EQ(plain.output.find("\"grid\""), std::string::npos) << plain.output;
  const Result full = run("check " + cfg.string() + " --print-config");
  EXPECT_EQ(full.output.rfind("model diffusion, backend cpu", 0), 0u) << full.output;
  EXPECT_NE(full.output.find("\"grid\""), std::string::npos) << full.output;
  fs::remove(cfg);
}

TEST(Cli, EachCommandHasItsHelp) {
  for (const std::string verb : {"run", "check", "describe"}) {
    const Result r = run(verb + " --help");
    EXPECT_EQ(r.code, 0) << verb;
    EXPECT_EQ(r.output.rfind("usage: staghorn " + verb, 0), 0u) << r.output;
  }
  EXPECT_NE(run("run --help").output.find("--restart SNAPSHOT"), std::string::npos);
  EXPECT_NE(run("describe --help").output.find("--json-schema"), std::string::npos);
}

TEST(Cli, DescribeEmitsAJsonSchemaOfEveryModel) {
  const Result r = run("describe --json-schema");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* text :
       {"\"$schema\": \"http://json-schema.org/draft-07/schema#\"", "\"const\": \"stokes\"",
        "\"const\": \"mhd\"", "\"additionalProperties\": false", "\"exclusiveMinimum\": 0.0",
        "\"enum\": [\n", "\"minItems\": 3"})
    EXPECT_NE(r.output.find(text), std::string::npos) << text;
}

}  // namespace
