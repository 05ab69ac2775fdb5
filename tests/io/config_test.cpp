// Config: schema resolution and validation messages, --set overrides, loading JSON files.
#include "io/config.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/schema.hpp"
#include "test_support.hpp"

namespace staghorn::io {
namespace {

using test::error_of;
using test::gather_text;

Schema test_schema() {
  Schema s;
  s.add("grid.n", Type::int3, {32, 32, 1}, "cells per axis").at_least(1);
  s.add("grid.length", Type::number3, {1.0, 2.0, 1.0}, "box size").above(0);
  s.add("grid.periodic", Type::bool3, {false, false, true}, "periodic axes");
  s.add("time.dt", Type::number, nullptr, "fixed time step, null: from the CFL limit").above(0);
  s.add("time.steps", Type::integer, 10, "steps to run").at_least(0);
  s.add("time.cfl", Type::number, 0.5, "CFL number").above(0).at_most(1);
  s.add("backend", Type::string, "auto", "where kernels run").one_of({"cpu", "cuda", "auto"});
  s.add("output.enabled", Type::boolean, true, "write snapshots");
  s.add("output.every", Type::integer, nullptr, "steps between snapshots, null: end only");
  s.add("name", Type::string, "run", "run name");
  return s;
}

std::string resolve_error(const json& user) {
  return error_of([&] { test_schema().resolve(user); });
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// ---- Schema::resolve ---------------------------------------------------------------------------

TEST(Resolve, FillsEveryDefault) {
  const json r = test_schema().resolve(json::object());
  const json want = {
      {"grid",
       {{"n", {32, 32, 1}}, {"length", {1.0, 2.0, 1.0}}, {"periodic", {false, false, true}}}},
      {"time", {{"dt", nullptr}, {"steps", 10}, {"cfl", 0.5}}},
      {"backend", "auto"},
      {"output", {{"enabled", true}, {"every", nullptr}}},
      {"name", "run"}};
  EXPECT_EQ(r, want) << r.dump();
}

TEST(Resolve, KeepsUserValuesAndCompletesTheirSections) {
  const json user = {
      {"grid", {{"n", {8, 4, 2}}}}, {"time", {{"dt", 1e-3}, {"cfl", 1}}}, {"backend", "cpu"}};
  const json r = test_schema().resolve(user);
  EXPECT_EQ(r["grid"]["n"], json({8, 4, 2}));
  EXPECT_EQ(r["grid"]["length"], json({1.0, 2.0, 1.0}));
  EXPECT_EQ(r["time"]["dt"], 1e-3);
  EXPECT_EQ(r["time"]["cfl"], 1);  // an integer is a valid number
  EXPECT_EQ(r["time"]["steps"], 10);
  EXPECT_EQ(r["backend"], "cpu");
  EXPECT_EQ(r["output"]["enabled"], true);
  EXPECT_EQ(at_path(r, "time.dt"), 1e-3);
  EXPECT_EQ(at_path(r, "grid.n"), json({8, 4, 2}));
  EXPECT_TRUE(starts_with(error_of([&] { at_path(r, "time.nope"); }), "time.nope")) << "at_path";
}

TEST(Resolve, RejectsUnknownKeysWithTheirPathAndASuggestion) {
  EXPECT_EQ(resolve_error({{"gird", {{"n", {1, 1, 1}}}}}),
            "gird: unknown key (did you mean grid?)");
  EXPECT_EQ(resolve_error({{"grid", {{"lenght", {1, 1, 1}}}}}),
            "grid.lenght: unknown key (did you mean grid.length?)");
  EXPECT_EQ(resolve_error({{"time", {{"stpes", 3}}}}),
            "time.stpes: unknown key (did you mean time.steps?)");
  EXPECT_EQ(resolve_error({{"output", {{"evry", 3}}}}),
            "output.evry: unknown key (did you mean output.every?)");
  // Nothing close: no suggestion.
  EXPECT_EQ(resolve_error({{"solver", {{"tol", 1e-8}}}}), "solver: unknown key");
  EXPECT_EQ(resolve_error({{"time", {{"zzzzzzzz", 1}}}}), "time.zzzzzzzz: unknown key");
  // A key below a value is unknown too, as is a top level that is not an object.
  EXPECT_TRUE(starts_with(resolve_error({{"name", {{"first", "x"}}}}), "name: expected a string"));
  EXPECT_NE(resolve_error(json::array({1, 2})), "<no error>");
  EXPECT_NE(resolve_error("grid"), "<no error>");
}

TEST(Resolve, RejectsWrongTypes) {
  const struct {
    const char* user;  // JSON text
    std::string prefix;
  } cases[] = {
      {R"({"time": {"dt": "fast"}})", "time.dt: expected a number, got \"fast\" (string)"},
      {R"({"time": {"steps": 2.5}})", "time.steps: expected an integer, got 2.5 (number)"},
      {R"({"time": {"steps": "3"}})", "time.steps: expected an integer"},
      {R"({"time": {"steps": {"a": 1}}})",
       "time.steps: expected an integer, got {\"a\":1} (object)"},
      {R"({"time": {"cfl": [0.5]}})", "time.cfl: expected a number"},
      {R"({"output": {"enabled": 1}})", "output.enabled: expected true or false, got 1 (integer)"},
      {R"({"output": {"enabled": "yes"}})", "output.enabled: expected true or false"},
      {R"({"name": 7})", "name: expected a string, got 7 (integer)"},
      {R"({"backend": {"kind": "cpu"}})", "backend: expected a string"},
      {R"({"grid": {"n": [8, 8]}})", "grid.n: expected an array of 3 integers, got [8,8]"},
      {R"({"grid": {"n": [8, 8, 8, 8]}})", "grid.n: expected an array of 3 integers"},
      {R"({"grid": {"n": 8}})", "grid.n: expected an array of 3 integers, got 8"},
      {R"({"grid": {"n": {"x": 8}}})", "grid.n: expected an array of 3 integers"},
      {R"({"grid": {"n": [8, 8.5, 8]}})", "grid.n[1]: expected an integer, got 8.5"},
      {R"({"grid": {"length": [1, "2", 1]}})", "grid.length[1]: expected a number, got \"2\""},
      {R"({"grid": {"periodic": [true, 0, true]}})", "grid.periodic[1]: expected true or false"},
      {R"({"grid": 5})", "grid: expected an object, got 5"},
      {R"({"time": [1, 2]})", "time: expected an object"},
  };
  for (const auto& c : cases) {
    const std::string msg = resolve_error(json::parse(c.user));
    EXPECT_TRUE(starts_with(msg, c.prefix))
        << c.user << "\n  message: " << msg << "\n  expected to start with: " << c.prefix;
  }
}

TEST(Resolve, ChecksRangesWithExactMessages) {
  EXPECT_EQ(resolve_error({{"grid", {{"n", {4, 4, 0}}}}}), "grid.n[2]: must be >= 1, got 0");
  EXPECT_EQ(resolve_error({{"grid", {{"n", {-3, 4, 4}}}}}), "grid.n[0]: must be >= 1, got -3");
  EXPECT_EQ(resolve_error({{"grid", {{"length", {1, 0, 1}}}}}),
            "grid.length[1]: must be > 0, got 0");
  EXPECT_EQ(resolve_error({{"time", {{"dt", -0.25}}}}), "time.dt: must be > 0, got -0.25");
  EXPECT_EQ(resolve_error({{"time", {{"cfl", 1.5}}}}), "time.cfl: must be <= 1, got 1.5");
  EXPECT_EQ(resolve_error({{"time", {{"steps", -1}}}}), "time.steps: must be >= 0, got -1");
  // The limits themselves are accepted where inclusive.
  EXPECT_EQ(resolve_error({{"time", {{"cfl", 1}, {"steps", 0}}}, {"grid", {{"n", {1, 1, 1}}}}}),
            "<no error>");
}

TEST(Resolve, KeepsIntegersWithinTheirRange) {
  // Beyond 32 bits, where a key sets no range of its own: refused, never truncated.
  EXPECT_EQ(resolve_error(json::parse(R"({"time": {"steps": 4294967299}})")),
            "time.steps: must be <= 2147483647, got 4294967299");
  EXPECT_EQ(resolve_error(json::parse(R"({"output": {"every": -2147483649}})")),
            "output.every: must be >= -2147483648, got -2147483649");
  EXPECT_EQ(resolve_error(json::parse(R"({"grid": {"n": [8, 18446744073709551615, 1]}})")),
            "grid.n[1]: must be <= 2147483647, got 1.84467440737e+19");
  Schema wide;
  wide.add("seed", Type::integer, 1, "a seed").at_least(0).at_most(kLargestExactInteger);
  EXPECT_EQ(wide.resolve(json::parse(R"({"seed": 4294967299})"))["seed"], 4294967299LL);
}

TEST(Resolve, TakesIntegralNumbersAsIntegers) {
  // As JSON Schema's "integer" does: 3.0 and 3e0 are the integer 3, stored as one.
  const json r = test_schema().resolve(json::parse(R"({"time": {"steps": 3.0},
                                                       "grid": {"n": [8e0, 8, 1.0]}})"));
  EXPECT_TRUE(r["time"]["steps"].is_number_integer());
  EXPECT_EQ(r["time"]["steps"], 3);
  EXPECT_EQ(r["grid"]["n"], json::parse("[8, 8, 1]"));
  EXPECT_TRUE(r["grid"]["n"][0].is_number_integer());
  EXPECT_EQ(resolve_error(json::parse(R"({"time": {"steps": 1e300}})")),
            "time.steps: must be <= 2147483647, got 1e+300");
}

TEST(Resolve, ChecksPatternsAfterTheirExplanation) {
  Schema s;
  s.add("prefix", Type::string, "ok", "a file name")
      .checked_by([](const json& v) {
        if (v.get<std::string>().empty()) throw ConfigError("prefix: must not be empty");
      })
      .matching("^[a-z]{1,4}$");
  EXPECT_EQ(error_of([&] { s.resolve({{"prefix", ""}}); }), "prefix: must not be empty");
  EXPECT_EQ(error_of([&] {
              s.resolve({{"prefix", "abcde"}});
            }),
            "prefix: must match ^[a-z]{1,4}$, got \"abcde\"");
  EXPECT_EQ(s.resolve({{"prefix", "abc"}})["prefix"], "abc");
  EXPECT_EQ(s.json_schema()["properties"]["prefix"]["pattern"], "^[a-z]{1,4}$");
}

TEST(Resolve, ChecksChoices) {
  EXPECT_EQ(resolve_error({{"backend", "gpu"}}),
            "backend: must be one of cpu, cuda, auto, got \"gpu\"");
  EXPECT_EQ(resolve_error({{"backend", "CPU"}}),
            "backend: must be one of cpu, cuda, auto, got \"CPU\"");
  EXPECT_EQ(test_schema().resolve({{"backend", "cuda"}})["backend"], "cuda");
  // Strings without choices take anything.
  EXPECT_EQ(test_schema().resolve({{"name", "anything at all"}})["name"], "anything at all");
}

TEST(Resolve, AcceptsNullOnlyWhereTheDefaultIsNull) {
  const json r =
      test_schema().resolve({{"time", {{"dt", nullptr}}}, {"output", {{"every", nullptr}}}});
  EXPECT_TRUE(r["time"]["dt"].is_null());
  EXPECT_TRUE(r["output"]["every"].is_null());
  EXPECT_EQ(test_schema().resolve({{"output", {{"every", 5}}}})["output"]["every"], 5);
  EXPECT_EQ(resolve_error({{"time", {{"steps", nullptr}}}}), "time.steps: may not be null");
  EXPECT_EQ(resolve_error({{"grid", {{"n", nullptr}}}}), "grid.n: may not be null");
  EXPECT_EQ(resolve_error({{"name", nullptr}}), "name: may not be null");
  EXPECT_TRUE(starts_with(resolve_error({{"grid", {{"n", {4, nullptr, 4}}}}}), "grid.n[1]: "));
  // A null-default option still checks what it is given.
  EXPECT_TRUE(starts_with(resolve_error({{"output", {{"every", 2.5}}}}),
                          "output.every: expected an integer"));
  EXPECT_TRUE(starts_with(resolve_error({{"grid", nullptr}}), "grid: expected an object"));
}

// ---- apply_override ----------------------------------------------------------------------------

TEST(Override, SetsNestedPathsCreatingObjects) {
  json c = {{"grid", {{"n", {8, 8, 8}}}}, {"name", "a"}};
  apply_override(c, "time.dt=0.01");
  apply_override(c, "a.b.c=true");
  apply_override(c, "name=b");
  EXPECT_EQ(c["time"]["dt"], 0.01);
  EXPECT_EQ(c["a"]["b"]["c"], true);
  EXPECT_EQ(c["name"], "b");
  EXPECT_EQ(c["grid"]["n"], json({8, 8, 8}));  // siblings untouched
}

TEST(Override, SetsOneArrayElement) {
  json c = {{"grid", {{"n", {8, 8, 8}}}}};
  apply_override(c, "grid.n[2]=1");
  EXPECT_EQ(c["grid"]["n"], json({8, 8, 1}));
  apply_override(c, "grid.n[0]=64");
  EXPECT_EQ(c["grid"]["n"], json({64, 8, 1}));
}

// An index may sit anywhere in the path: an element of a list of objects, or of a nested array.
TEST(Override, SetsKeysInsideArrayElements) {
  json c = {{"stokes", {{"materials", {{"phases", {{{"viscosity", 1.0}}, {{"viscosity", 2.0}}}}}}}},
            {"m", {{1, 2}, {3, 4}}}};
  apply_override(c, "stokes.materials.phases[1].viscosity=1e-6");
  apply_override(c, "m[1][0]=7");
  EXPECT_EQ(c["stokes"]["materials"]["phases"][1]["viscosity"], 1e-6);
  EXPECT_EQ(c["stokes"]["materials"]["phases"][0]["viscosity"], 1.0);
  EXPECT_EQ(c["m"], json({{1, 2}, {7, 4}}));
}

// A path through a value that is not an object, or past an array's end, is an error naming the
// part that failed; the config is left as it was.
TEST(Override, RefusesPathsThroughNonObjects) {
  const json before = {{"grid", {{"n", {8, 8, 8}}}}, {"phases", {{{"k", 1}}}}};
  json c = before;
  const auto message = [&](const std::string& a) {
    try {
      apply_override(c, a);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("grid.n.x=3"),
            "--set grid.n.x=3: 'grid.n' is array, not an object with key 'x'");
  EXPECT_EQ(message("phases[1].k=2"),
            "--set phases[1].k=2: phases has no element 1 (set the whole array instead)");
  EXPECT_EQ(message("phases[0]x.k=2"),
            "--set phases[0]x.k=2: bad array index in 'phases[0]x.k' (expected key[N], N >= 0)");
  EXPECT_EQ(message("grid..n=2"), "--set grid..n=2: empty key in 'grid..n'");
  EXPECT_EQ(message("grid.=2"), "--set grid.=2: empty key in 'grid.'");
  EXPECT_EQ(c, before);
}

TEST(Override, ParsesValuesAsJsonOrKeepsThemAsStrings) {
  json c = json::object();
  apply_override(c, "i=42");
  apply_override(c, "x=1e-3");
  apply_override(c, "b=false");
  apply_override(c, "z=null");
  apply_override(c, "arr=[4,4,1]");
  apply_override(c, "obj={\"k\": 2}");
  apply_override(c, "quoted=\"7\"");
  apply_override(c, "word=cpu");
  apply_override(c, "spaced=hello world");
  apply_override(c, "eq=a=b");
  apply_override(c, "empty=");
  EXPECT_TRUE(c["i"].is_number_integer());
  EXPECT_EQ(c["i"], 42);
  EXPECT_EQ(c["x"], 1e-3);
  EXPECT_EQ(c["b"], false);
  EXPECT_TRUE(c["z"].is_null());
  EXPECT_EQ(c["arr"], json({4, 4, 1}));
  EXPECT_EQ(c["obj"], json({{"k", 2}}));
  EXPECT_EQ(c["quoted"], "7");
  EXPECT_EQ(c["word"], "cpu");
  EXPECT_EQ(c["spaced"], "hello world");
  EXPECT_EQ(c["eq"], "a=b");
  EXPECT_EQ(c["empty"], "");
  // An override feeds the schema like a file would.
  json cfg = json::object();
  apply_override(cfg, "grid.n=[4,4,0]");
  EXPECT_EQ(resolve_error(cfg), "grid.n[2]: must be >= 1, got 0");
}

TEST(Override, RejectsMalformedAssignments) {
  const json base = {{"grid", {{"n", {8, 8, 8}}}}, {"name", "a"}};
  for (const char* bad :
       {"grid.n", "=5", "", "a..b=1", ".a=1", "grid.n[x]=1", "grid.n[]=1", "grid.n[5]=1",
        "grid.n[3]=1", "grid.n[1]x=2", "grid.n[1=2", "grid.m[0]=1", "name[0]=1"}) {
    json c = base;
    const std::string msg = error_of([&] { apply_override(c, bad); });
    EXPECT_TRUE(starts_with(msg, std::string("--set ") + bad)) << bad << " -> " << msg;
  }
}

TEST(Override, RejectsNegativeAndPartlyNumericIndices) {
  const json base = {{"grid", {{"n", {8, 8, 8}}}}};
  for (const char* bad : {"grid.n[-1]=5", "grid.n[-1]=[1,2,3]", "grid.n[1x]=2", "grid.=1"}) {
    json c = base;
    const std::string msg = error_of([&] { apply_override(c, bad); });
    EXPECT_TRUE(starts_with(msg, std::string("--set ") + bad)) << bad << " -> " << msg;
    EXPECT_EQ(c, base) << bad << " changed the config to " << c.dump();
  }
}

// ---- load_json_file / load_config --------------------------------------------------------------

class Files : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("staghorn_config_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::filesystem::path dir_;
};

TEST_F(Files, LoadsJsonWithComments) {
  const std::string path = write(
      "ok.json", "// a run\n{\n  \"grid\": {\"n\": [8, 8, 1]},  // 2-D\n  \"name\": \"x\"\n}\n");
  const json c = load_json_file(path);
  EXPECT_EQ(c["grid"]["n"], json({8, 8, 1}));
  EXPECT_EQ(c["name"], "x");
}

TEST_F(Files, MissingFileNamesThePath) {
  const std::string path = (dir_ / "absent.json").string();
  const std::string msg = error_of([&] { load_json_file(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("cannot be opened"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] { load_config(path, {}); }).find(path), std::string::npos);
}

TEST_F(Files, MalformedJsonNamesFileLineAndColumn) {
  // The stray ']' is the 8th character of line 3.
  const std::string path = write("bad.json", "{\n  \"a\": 1,\n  \"b\": ]\n}\n");
  const std::string msg = error_of([&] { load_json_file(path); });
  EXPECT_TRUE(starts_with(msg, "config file '" + path + "'")) << msg;
  EXPECT_NE(msg.find("malformed JSON at line 3, column 8"), std::string::npos) << msg;

  // An error on the first line, and one at the end of the input.
  const std::string first = write("first.json", "{\"a\" 1}");
  EXPECT_NE(error_of([&] { load_json_file(first); }).find("at line 1, column 6"), std::string::npos)
      << error_of([&] { load_json_file(first); });
  const std::string cut = write("cut.json", "{\n  \"a\": [1, 2,\n");
  const std::string cut_msg = error_of([&] { load_json_file(cut); });
  EXPECT_NE(cut_msg.find(cut), std::string::npos) << cut_msg;
  EXPECT_NE(cut_msg.find("malformed JSON at line "), std::string::npos) << cut_msg;
}

// nlohmann keeps the last of two equal keys: the first value would be dropped without a word.
TEST_F(Files, DuplicateKeysAreRefusedWithTheirPath) {
  const std::string top = write("top.json", "{\"name\": \"a\", \"name\": \"b\"}");
  EXPECT_TRUE(starts_with(error_of([&] { load_json_file(top); }),
                          "name: duplicate key in config "
                          "file '" +
                              top + "'"));
  const std::string nested =
      write("nested.json", "{\"grid\": {\"n\": [8, 8, 1], \"n\": [4, 4, 1]}}");
  EXPECT_TRUE(starts_with(error_of([&] { load_json_file(nested); }), "grid.n: duplicate key"));
  const std::string in_array = write("array.json", "{\"a\": [{\"x\": 1}, {\"y\": 2, \"y\": 3}]}");
  EXPECT_TRUE(starts_with(error_of([&] { load_json_file(in_array); }), "a.y: duplicate key"));
  // The same key in two objects is fine.
  const std::string siblings = write("siblings.json", "{\"a\": {\"x\": 1}, \"b\": {\"x\": 2}}");
  EXPECT_EQ(load_json_file(siblings)["b"]["x"], 2);
}

TEST_F(Files, NumberOverflowAndDirectoriesAreBadInput) {
  const std::string big = write("big.json", "{\"time\": {\"dt\": 1e999}}");
  const std::string msg = error_of([&] { load_json_file(big); });
  EXPECT_TRUE(starts_with(msg, "config file '" + big + "'")) << msg;
  EXPECT_NE(msg.find("number overflow parsing '1e999'"), std::string::npos) << msg;
  EXPECT_EQ(error_of([&] { load_json_file(dir_.string()); }),
            "config file '" + dir_.string() + "': is a directory, not a JSON file");
}

// What nlohmann's parser alone would take: text after a NUL byte, any size, any depth.
TEST_F(Files, ConfigTextIsBounded) {
  const std::string nul = write("nul.json", std::string("{\"a\": 1}\0{\"a\": 2}", 17));
  EXPECT_EQ(error_of([&] { load_json_file(nul); }),
            "config file '" + nul + "': holds a NUL byte at byte 8 (a config is JSON text)");
  EXPECT_EQ(error_of([&] { load_json_file("/dev/zero"); }),
            "config file '/dev/zero': holds a NUL byte at byte 0 (a config is JSON text)");
  const std::string large = write("large.json", "{" + std::string(16u << 20, ' ') + "}");
  EXPECT_EQ(error_of([&] { load_json_file(large); }),
            "config file '" + large + "': larger than 16 MiB (a config is a few KiB)");
  auto nested = [](int levels) {
    std::string text;
    for (int i = 0; i < levels; ++i) text += "{\"k\": ";
    return text + "1" + std::string(levels, '}');
  };
  const std::string deep = write("deep.json", nested(65));
  EXPECT_NE(error_of([&] { load_json_file(deep); }).find("nests objects and arrays deeper than 64"),
            std::string::npos)
      << error_of([&] { load_json_file(deep); });
  EXPECT_TRUE(load_json_file(write("64.json", nested(64)))["k"].is_object());
}

TEST_F(Files, OverridesFollowTheFilesRules) {
  const std::string path = write("run.json", "{}");
  EXPECT_TRUE(starts_with(
      error_of([&] { load_config(path, {"grid={\"n\": [8, 8, 1], \"n\": [4, 4, 1]}"}); }),
      "grid.n: duplicate key in --set grid="));
  EXPECT_TRUE(starts_with(error_of([&] { load_config(path, {"name=a\xff"}); }),
                          "--set: is not valid UTF-8"));
  // Text that is not JSON is a string, as before.
  EXPECT_EQ(load_config(path, {"name={not json"})["name"], "{not json");
}

TEST_F(Files, LoadConfigAppliesOverridesInOrder) {
  const std::string path = write("run.json", "{\"grid\": {\"n\": [8, 8, 8]}, \"name\": \"a\"}");
  const json c = load_config(path, {"grid.n[2]=1", "name=b", "name=c", "time.dt=0.5"});
  EXPECT_EQ(c["grid"]["n"], json({8, 8, 1}));
  EXPECT_EQ(c["name"], "c");
  EXPECT_EQ(c["time"]["dt"], 0.5);
  const std::string array = write("array.json", "[1, 2, 3]");
  EXPECT_NE(error_of([&] { load_config(array, {}); }).find(array), std::string::npos);
  EXPECT_TRUE(starts_with(error_of([&] { load_config(path, {"nope"}); }), "--set nope"));
}

}  // namespace
}  // namespace staghorn::io
