// The diagnostics time series: records read back as written, synced while the writer is open, and
// an existing file is moved aside by a new run and trimmed to the restart step by a restart.
#include "io/time_series.hpp"

#include <gtest/gtest.h>
#include <netcdf.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "scratch_dir.hpp"

namespace staghorn::io {
namespace {

namespace fs = std::filesystem;

const std::vector<SeriesColumn> kColumns{{"mass", "kg", "total mass"}, {"urms", "m s-1", ""}};

class TimeSeriesTest : public ::testing::Test {
 protected:
  std::string path() const { return scratch_.file("diagnostics.nc"); }

  // Steps 0, 10, ..., 10 (n - 1) with mass 1 + step and urms step / 100.
  void write(int n, std::optional<long long> resume = std::nullopt, int first = 0) {
    TimeSeries s(path(), kColumns, "test", resume);
    for (int r = first; r < first + n; ++r) s.append(10 * r, 0.5 * r, {1.0 + 10 * r, 0.1 * r});
  }

  const test::ScratchDir scratch_{"series"};
};

TEST_F(TimeSeriesTest, RecordsReadBackAsWritten) {
  write(4);
  const SeriesData d = read_time_series(path());
  ASSERT_EQ(d.records(), 4u);
  EXPECT_EQ(d.step, (std::vector<long long>{0, 10, 20, 30}));
  EXPECT_EQ(d.time, (std::vector<double>{0, 0.5, 1, 1.5}));
  EXPECT_EQ(d.values.at("mass"), (std::vector<double>{1, 11, 21, 31}));
  EXPECT_DOUBLE_EQ(d.values.at("urms")[3], 0.3);
}

TEST_F(TimeSeriesTest, AppendedRecordsAreOnDiskWhileTheWriterRuns) {
  TimeSeries s(path(), kColumns, "test", std::nullopt);
  s.append(0, 0, {1, 2});
  s.append(1, 0.1, {3, 4});
  // A second handle sees both records before the writer closes (or crashes).
  const SeriesData d = read_time_series(path());
  ASSERT_EQ(d.records(), 2u);
  EXPECT_EQ(d.values.at("mass")[1], 3);
}

TEST_F(TimeSeriesTest, ANewRunMovesTheOldFileAside) {
  write(3);
  write(1);
  EXPECT_EQ(read_time_series(path()).records(), 1u);
  EXPECT_EQ(read_time_series(path() + ".prev").records(), 3u);
}

TEST_F(TimeSeriesTest, ARestartKeepsTheRecordsUpToItsStepAndAppends) {
  write(5);                   // steps 0..40
  write(3, 20, /*first=*/3);  // restart from step 20: drops 30, 40; writes 30, 40, 50
  const SeriesData d = read_time_series(path());
  EXPECT_EQ(d.step, (std::vector<long long>{0, 10, 20, 30, 40, 50}));
  EXPECT_EQ(d.values.at("mass"), (std::vector<double>{1, 11, 21, 31, 41, 51}));
  EXPECT_FALSE(fs::exists(path() + ".tmp"));
}

TEST_F(TimeSeriesTest, ARestartWithoutAFileStartsOne) {
  write(2, 20, /*first=*/3);
  EXPECT_EQ(read_time_series(path()).step, (std::vector<long long>{30, 40}));
}

TEST_F(TimeSeriesTest, ARestartWithOtherColumnsLeavesTheFileAlone) {
  write(2);
  try {
    TimeSeries s(path(), {{"energy", "1", ""}}, "test", 10);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("holds the columns (mass, urms)"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(read_time_series(path()).records(), 2u);
}

std::string attribute(int id, const char* var, const char* name) {
  int v = -1;
  EXPECT_EQ(nc_inq_varid(id, var, &v), NC_NOERR) << var;
  char text[256] = {};
  if (nc_get_att_text(id, v, name, text) == NC_ENOTATT) return "<missing>";
  return text;
}

TEST_F(TimeSeriesTest, VariablesCarryUnitsAndLongNames) {
  write(1);
  int id = -1;
  ASSERT_EQ(nc_open(path().c_str(), NC_NOWRITE, &id), NC_NOERR);
  EXPECT_EQ(attribute(id, "mass", "units"), "kg");
  EXPECT_EQ(attribute(id, "mass", "long_name"), "total mass");
  EXPECT_EQ(attribute(id, "urms", "long_name"), "urms");  // none given: the name
  // Elapsed model time, not a CF date axis (io/snapshot.cpp's define_time says why).
  EXPECT_EQ(attribute(id, "time", "axis"), "<missing>");
  EXPECT_EQ(attribute(id, "time", "units"), "1");
  int unlimited = -1, time = -1;
  EXPECT_EQ(nc_inq_unlimdim(id, &unlimited), NC_NOERR);
  EXPECT_EQ(nc_inq_dimid(id, "time", &time), NC_NOERR);
  EXPECT_EQ(unlimited, time);
  nc_close(id);
}

}  // namespace
}  // namespace staghorn::io
