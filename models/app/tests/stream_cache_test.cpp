// The CPU's copy bandwidth reference kept between runs (models/app/stream_cache.hpp): read back
// while younger than the age limit and under its own key only; a malformed file, an entry of
// another shape or a directory that cannot be written never fails a run.
#include "models/app/stream_cache.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace staghorn::app {
namespace {

namespace fs = std::filesystem;

class StreamCache : public ::testing::Test {
 protected:
  StreamCache()
      : dir_(fs::temp_directory_path() / ("staghorn-stream-" + std::to_string(getpid()))) {
    fs::remove_all(dir_);
  }
  ~StreamCache() override { fs::remove_all(dir_); }
  std::string dir() const { return (dir_ / "cache").string(); }  // not made yet: keep makes it
  static StreamReference reference(double copy, std::time_t measured) {
    StreamReference r;
    r.stream = {copy, 1.5 * copy, std::size_t(1) << 28, std::size_t(1) << 25};
    r.measured = measured;
    return r;
  }
  void write_file(const std::string& text) const {
    fs::create_directories(dir());
    std::ofstream(fs::path(dir()) / "host_stream.json") << text;
  }
  fs::path dir_;
};

constexpr std::time_t kThen = 1'790'000'000;

TEST_F(StreamCache, KeptReferenceIsReadBackUntilItIsTooOld) {
  ASSERT_TRUE(keep_stream(dir(), "host A", reference(26.5, kThen)));
  const auto young = kept_stream(dir(), "host A", 100, kThen + 99);
  ASSERT_TRUE(young.has_value());
  EXPECT_EQ(young->stream.copy_GBs, 26.5);
  EXPECT_EQ(young->stream.triad_GBs, 1.5 * 26.5);
  EXPECT_EQ(young->stream.array_bytes, std::size_t(1) << 28);
  EXPECT_EQ(young->stream.cache_bytes, std::size_t(1) << 25);
  EXPECT_EQ(young->measured, kThen);
  EXPECT_FALSE(kept_stream(dir(), "host A", 100, kThen + 100));  // too old
  EXPECT_FALSE(kept_stream(dir(), "host A", 100, kThen - 1));    // from the future
  EXPECT_FALSE(kept_stream(dir(), "host A", 0, kThen));          // age limit 0: always measure
  EXPECT_FALSE(kept_stream(dir(), "host B", 100, kThen));        // another key
  EXPECT_FALSE(kept_stream("", "host A", 100, kThen));           // no cache directory
}

TEST_F(StreamCache, KeysAreKeptSideBySide) {
  ASSERT_TRUE(keep_stream(dir(), "2 threads", reference(20, kThen)));
  ASSERT_TRUE(keep_stream(dir(), "16 threads", reference(80, kThen + 1)));
  ASSERT_TRUE(keep_stream(dir(), "2 threads", reference(21, kThen + 2)));  // replaced
  EXPECT_EQ(kept_stream(dir(), "2 threads", 100, kThen + 3)->stream.copy_GBs, 21);
  EXPECT_EQ(kept_stream(dir(), "16 threads", 100, kThen + 3)->stream.copy_GBs, 80);
  for (const auto& e : fs::directory_iterator(dir()))  // no temporary file left behind
    EXPECT_EQ(e.path().filename(), "host_stream.json");
}

TEST_F(StreamCache, MalformedFilesAndEntriesReadAsNone) {
  write_file("{ not json");
  EXPECT_FALSE(kept_stream(dir(), "host A", 100, kThen));
  ASSERT_TRUE(keep_stream(dir(), "host A", reference(26.5, kThen)));  // written over
  EXPECT_TRUE(kept_stream(dir(), "host A", 100, kThen));
  write_file(R"({"host A": {"copy_GBs": "fast", "triad_GBs": 1, "array_bytes": 1,
                 "cache_bytes": 1, "measured": 1790000000}})");
  EXPECT_FALSE(kept_stream(dir(), "host A", 100, kThen));
  write_file(R"({"host A": {"copy_GBs": 0, "triad_GBs": 1, "array_bytes": 1,
                 "cache_bytes": 1, "measured": 1790000000}})");
  EXPECT_FALSE(kept_stream(dir(), "host A", 100, kThen));  // no bandwidth is no reference
  write_file(R"(["host A"])");
  EXPECT_FALSE(kept_stream(dir(), "host A", 100, kThen));
}

TEST_F(StreamCache, AnUnwritableDirectoryKeepsNothing) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "a_file") << "x";
  const std::string under_a_file = (dir_ / "a_file" / "cache").string();
  EXPECT_FALSE(keep_stream(under_a_file, "host A", reference(26.5, kThen)));
  EXPECT_FALSE(kept_stream(under_a_file, "host A", 100, kThen));
  EXPECT_FALSE(keep_stream("", "host A", reference(26.5, kThen)));
}

TEST(StreamKey, NamesTheCoresThreadsAndRanksOfTheNode) {
  ThreadPlan plan;
  plan.threads = 2, plan.cores = 2, plan.node_cores = 2;
  const std::string one = stream_key(plan, 1);
  EXPECT_NE(one, stream_key(plan, 4));
  plan.threads = 1;
  EXPECT_NE(one, stream_key(plan, 1));
  plan.threads = 2, plan.cores = 1;
  EXPECT_NE(one, stream_key(plan, 1));
  EXPECT_NE(one.find("1 rank x 2 threads on 2 cores"), std::string::npos) << one;
}

}  // namespace
}  // namespace staghorn::app
