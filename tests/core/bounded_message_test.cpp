// Messages stay bounded whatever they quote: long words, long lines, many lines.
#include "core/bounded_message.hpp"

#include <gtest/gtest.h>

#include <string>

namespace staghorn {
namespace {

TEST(BoundedMessage, ShortMessagesPassUnchanged) {
  const std::string m = "grid.n[2]: must be >= 1, got 0\n  time.dt: must be > 0, got -1";
  EXPECT_EQ(bounded_message(m), m);
}

TEST(BoundedMessage, CutsLongWordsAndSaysHowLong) {
  const std::string key(10 << 20, 'k');
  const std::string m = bounded_message(key + ": unknown key");
  EXPECT_EQ(m, std::string(120, 'k') + "...[10485761 bytes] unknown key");
}

TEST(BoundedMessage, CutsBetweenUtf8Characters) {
  std::string word = std::string(119, 'a') + "\xc3\xa9" + std::string(100, 'b');  // é at 119
  const std::string m = bounded_message(word);
  EXPECT_EQ(m, std::string(119, 'a') + "...[221 bytes]");
}

TEST(BoundedMessage, CutsLongLinesOfShortWords) {
  std::string line;
  for (int i = 0; i < 1000; ++i) line += "ab ";
  const std::string m = bounded_message(line);
  EXPECT_LT(m.size(), 900u);
  EXPECT_NE(m.find("...[3000 bytes]"), std::string::npos) << m;
}

TEST(BoundedMessage, KeepsTheFirstSixtyLines) {
  std::string m;
  for (int i = 0; i < 100; ++i) m += "line " + std::to_string(i) + "\n";
  const std::string b = bounded_message(m);
  EXPECT_NE(b.find("line 59\n... (40 more lines)"), std::string::npos) << b;
  EXPECT_EQ(b.find("line 60"), std::string::npos);
}

}  // namespace
}  // namespace staghorn
