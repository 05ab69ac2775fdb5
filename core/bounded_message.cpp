#include "core/bounded_message.hpp"

#include <cctype>
#include <sstream>

namespace staghorn {
namespace {

constexpr std::size_t kMaxWord = 160, kKeptWord = 120;
constexpr std::size_t kMaxLine = 1000, kKeptLine = 800;
constexpr std::size_t kMaxLines = 60;

// `text` cut to about `keep` bytes, not inside a UTF-8 character, and told how long it was.
std::string cut(const std::string& text, std::size_t keep) {
  std::size_t end = keep;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + "...[" + std::to_string(text.size()) + " bytes]";
}

std::string bounded_line(const std::string& line) {
  std::string out, word;
  auto flush = [&] {
    out += word.size() > kMaxWord ? cut(word, kKeptWord) : word;
    word.clear();
  };
  for (const char c : line) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      flush();
      out += c;
    } else {
      word += c;
    }
  }
  flush();
  return out.size() > kMaxLine ? cut(out, kKeptLine) : out;
}

}  // namespace

std::string bounded_message(const std::string& message) {
  std::istringstream in(message);
  std::string out, line;
  std::size_t lines = 0, dropped = 0;
  while (std::getline(in, line)) {
    if (lines++ >= kMaxLines) {
      ++dropped;
      continue;
    }
    out += (out.empty() && lines == 1 ? "" : "\n") + bounded_line(line);
  }
  if (dropped > 0) out += "\n... (" + std::to_string(dropped) + " more lines)";
  return out;
}

}  // namespace staghorn
