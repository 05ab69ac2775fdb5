// diagnostics.csv: rows written whole or not at all, and an in-place restart's rows trimmed to its
// step.
#include "io/records.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "scratch_dir.hpp"
#include "test_support.hpp"

namespace staghorn::io {
namespace {

class CsvTest : public ::testing::Test {
 protected:
  std::string path() const { return scratch_.file("diagnostics.csv"); }
  std::string text() const {
    std::ifstream in(path());
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  const test::ScratchDir scratch_{"csv"};
};

TEST_F(CsvTest, WritesTheHeaderAndShortestNumbers) {
  CsvSeries csv(path(), {"step", "mass"}, std::nullopt);
  EXPECT_TRUE(csv.fresh());
  csv.row({0, 0.1});
  csv.row({1, 2e-4});
  EXPECT_EQ(text(), "step,mass\n0,0.1\n1,2e-04\n");
}

TEST_F(CsvTest, ARestartKeepsTheRowsUpToItsStep) {
  {
    CsvSeries csv(path(), {"step", "mass"}, std::nullopt);
    for (int s = 0; s <= 4; ++s) csv.row({double(s), 1.0 + s});
  }
  {
    std::ofstream(path(), std::ios::app) << "5,6";  // a row cut by a crash
  }
  CsvSeries again(path(), {"step", "mass"}, 2);
  EXPECT_FALSE(again.fresh());
  again.row({3, 7});
  EXPECT_EQ(text(), "step,mass\n0,1\n1,2\n2,3\n3,7\n");
  // Another run's columns: refused, the file left alone.
  const std::string before = text();
  EXPECT_NE(test::error_of([&] {
              CsvSeries(path(), {"step", "urms"}, 2);
            }).find("holds the columns (step,mass), this run writes (step,urms)"),
            std::string::npos);
  EXPECT_EQ(text(), before);
}

// A row that does not fit (here the file-size limit) leaves the file as it was: no partial line.
TEST_F(CsvTest, ARowThatDoesNotFitIsTakenBack) {
  CsvSeries csv(path(), {"step", "value"}, std::nullopt);
  csv.row({0, 1});
  const std::string before = text();
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  rlimit tight = old;
  tight.rlim_cur = before.size() + 8;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &tight), 0);
  const std::string error = test::error_of([&] { csv.row({1, 0.123456789012345}); });
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(error.find("cannot write '" + path() + "': File too large"), std::string::npos)
      << error;
  EXPECT_EQ(text(), before);
  csv.row({1, 2});  // and it goes on where it stopped once there is room
  EXPECT_EQ(text(), before + "1,2\n");
}

TEST_F(CsvTest, JsonLinesAreAppendedWhole) {
  const std::string p = scratch_.file("metrics.jsonl");
  append_json_line(p, {{"a", 1}});
  append_json_line(p, {{"b", 2}});
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), "{\"a\":1}\n{\"b\":2}\n");
}

}  // namespace
}  // namespace staghorn::io
