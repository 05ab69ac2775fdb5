// The output directory: one run at a time (the lock names its holder, is removed at the end and
// taken over from a killed run), other runs' files of every prefix refused, an in-place restart's
// later snapshots moved aside, and the prefix's safe set.
#include "models/app/output_dir.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "core/error.hpp"
#include "models/output_prefix.hpp"
#include "models/test_dirs.hpp"
#include "test_support.hpp"

namespace staghorn::app {
namespace {

namespace fs = std::filesystem;
using test::error_of;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(OutputLock, ASecondRunIsRefusedWithTheHolderNamed) {
  const test::TempDir dir("lock");
  const std::string out = dir.path();
  {
    const OutputLock first(out);
    const std::string why = error_of([&] { OutputLock second(out); });
    EXPECT_TRUE(has(why, "output.dir: '" + out + "' is in use by another run (pid " +
                             std::to_string(getpid()) + " on host "))
        << why;
    EXPECT_TRUE(fs::exists(fs::path(out) / OutputLock::kFile));
  }
  EXPECT_FALSE(fs::exists(fs::path(out) / OutputLock::kFile));  // removed at the end
  const OutputLock again(out);                                  // and free again
}

TEST(OutputLock, AFileLeftByAKilledRunIsTakenOver) {
  const test::TempDir dir("stale");
  std::ofstream(fs::path(dir.path()) / OutputLock::kFile) << "pid 1 on host gone\n";
  const OutputLock lock(dir.path());  // no process holds it
  std::ifstream in(fs::path(dir.path()) / OutputLock::kFile);
  std::string holder;
  std::getline(in, holder);
  EXPECT_TRUE(has(holder, "pid " + std::to_string(getpid()))) << holder;
}

class OutputDirTest : public ::testing::Test {
 protected:
  // A file named like a snapshot (staghorn_stamp reads only its attributes).
  void snapshot(const std::string& name, long long step) {
    const std::string cdl = (fs::path(out_) / "s.cdl").string();
    std::ofstream(cdl) << "netcdf s { :staghorn_step = " << step << "LL ; :staghorn_time = 0. ; }";
    ASSERT_EQ(
        std::system(("ncgen -k nc4 -o " + (fs::path(out_) / name).string() + " " + cdl).c_str()),
        0);
    fs::remove(cdl);
  }
  static std::string made(const std::string& dir) {
    fs::create_directories(dir);
    return dir;
  }
  const test::TempDir dir_{"outdir"};
  const std::string out_ = made(dir_.path("out"));
};

TEST_F(OutputDirTest, AnotherRunsFilesOfAnyPrefixAreRefused) {
  snapshot("other_000002.nc", 2);
  OutputPlan plan{out_, "snapshot", false, std::nullopt};
  EXPECT_TRUE(has(error_of([&] { check_previous_run(plan); }),
                  "holds snapshots of another run (" + out_ + "/other_000002.nc)"));
  fs::remove(fs::path(out_) / "other_000002.nc");
  std::ofstream(fs::path(out_) / "diagnostics.csv") << "step\n0\n";
  EXPECT_TRUE(
      has(error_of([&] { check_previous_run(plan); }), "holds the diagnostics of another run"));
  // A file that is no snapshot of ours, whatever its name, is the user's.
  fs::remove(fs::path(out_) / "diagnostics.csv");
  std::ofstream(fs::path(out_) / "data_2020.nc") << "not netCDF";
  EXPECT_EQ(error_of([&] { check_previous_run(plan); }), "<no error>");
  plan.overwrite = true;
  snapshot("other_000002.nc", 2);
  EXPECT_EQ(error_of([&] { check_previous_run(plan); }), "<no error>");
  const TakenDir taken = take_output_dir(plan);
  EXPECT_FALSE(fs::exists(fs::path(out_) / "other_000002.nc"));
  EXPECT_TRUE(fs::exists(fs::path(out_) / "data_2020.nc"));
}

TEST_F(OutputDirTest, AnInPlaceRestartMovesItsLaterSnapshotsAside) {
  for (int s = 0; s <= 4; s += 2) snapshot("snapshot_00000" + std::to_string(s) + ".nc", s);
  EXPECT_TRUE(restarts_in_place(out_ + "/snapshot_000002.nc", out_, "snapshot"));
  EXPECT_FALSE(restarts_in_place(out_ + "/snapshot_000002.nc", out_, "other"));
  EXPECT_FALSE(restarts_in_place("/tmp/snapshot_000002.nc", out_, "snapshot"));
  const OutputPlan plan{out_, "snapshot", false, 2};
  EXPECT_EQ(error_of([&] { check_previous_run(plan); }), "<no error>");
  const TakenDir taken = take_output_dir(plan);
  ASSERT_EQ(taken.moved_aside.size(), 1u);
  EXPECT_EQ(taken.moved_aside[0], out_ + "/snapshot_000004.nc.superseded");
  EXPECT_TRUE(fs::exists(fs::path(out_) / "snapshot_000002.nc"));
  EXPECT_FALSE(fs::exists(fs::path(out_) / "snapshot_000004.nc"));
}

// Taking the directory checks again under the lock: a run that appeared after the first check
// is refused there too, and the lock file goes with the refusal.
TEST_F(OutputDirTest, TakingTheDirectoryChecksAgainUnderTheLock) {
  snapshot("snapshot_000000.nc", 0);
  const OutputPlan plan{out_, "snapshot", false, std::nullopt};
  EXPECT_TRUE(has(error_of([&] { take_output_dir(plan); }), "holds snapshots of another run"));
  EXPECT_FALSE(fs::exists(fs::path(out_) / OutputLock::kFile));
  const OutputPlan fresh{out_ + "/new", "snapshot", false, std::nullopt};
  { const TakenDir taken = take_output_dir(fresh); }
  EXPECT_TRUE(fs::is_directory(out_ + "/new"));
}

TEST(Prefix, OnlyTheSafeSetMatchesThePatternAndTheCheck) {
  const std::regex pattern(kPrefixPattern);
  for (const std::string& ok :
       std::vector<std::string>{"snapshot", "run-1.a_b+c", std::string(200, 'p'), "..a"}) {
    EXPECT_EQ(error_of([&] { check_prefix(ok); }), "<no error>") << ok;
    EXPECT_TRUE(std::regex_match(ok, pattern)) << ok;
  }
  for (const std::string& bad :
       std::vector<std::string>{"", std::string(201, 'p'), ".", "..", "a/b", "a&b", "a<b", "a]]>b",
                                "a:b", "a b", "caf\xc3\xa9", std::string("a\nb")}) {
    EXPECT_NE(error_of([&] { check_prefix(bad); }), "<no error>") << bad;
    EXPECT_FALSE(std::regex_match(bad, pattern)) << bad;
  }
  EXPECT_TRUE(has(error_of([&] { check_prefix("caf\xc3\xa9"); }), "contains the byte 0xc3"));
}

}  // namespace
}  // namespace staghorn::app
