#include "io/json_text.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

namespace staghorn::io {
namespace {

// Watches the parse: refuses a key that appears twice in one object (nlohmann keeps the last
// silently, so a user's first value would be ignored without a word) and nesting deeper than
// kMaxConfigDepth (the paths kept here would grow with its square). Tracks the open containers
// and the dotted path to each.
class ParseGuard {
 public:
  ParseGuard(std::string where, std::string base) : where_(std::move(where)), pending_(base) {}
  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        open(event == json::parse_event_t::array_start);
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        keys_.pop_back();
        path_.pop_back();
        in_array_.pop_back();
        break;
      case json::parse_event_t::key: {
        const std::string key = parsed.get<std::string>();
        pending_ = dotted(key);
        if (!keys_.empty() && !keys_.back().insert(key).second)
          throw ConfigError(pending_ + ": duplicate key in " + where_ +
                            " (each key may appear once in an object)");
        break;
      }
      default:
        break;
    }
    return true;
  }

 private:
  void open(bool array) {
    // An element of an array has no key: it takes the array's path.
    const std::string path = !in_array_.empty() && in_array_.back() ? path_.back() : pending_;
    if (static_cast<int>(path_.size()) >= kMaxConfigDepth)
      throw ConfigError((path.empty() ? std::string("config") : path) + ": " + where_ +
                        " nests objects and arrays deeper than " + std::to_string(kMaxConfigDepth) +
                        " levels");
    path_.push_back(path);
    keys_.emplace_back();
    in_array_.push_back(array);
  }
  std::string dotted(const std::string& key) const {
    const std::string& parent = path_.empty() ? std::string() : path_.back();
    return parent.empty() ? key : parent + "." + key;
  }
  std::string where_;
  std::vector<std::set<std::string>> keys_;  // per open object (arrays get an unused entry)
  std::vector<std::string> path_;            // dotted path of each open container
  std::vector<bool> in_array_;               // whether each open container is an array
  std::string pending_;                      // the last key read: the next container's path
};

}  // namespace

std::string read_config_text(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError("config file '" + path + "': is a directory, not a JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ConfigError("config file '" + path + "': cannot be opened (missing or unreadable)");
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    const std::size_t got = static_cast<std::size_t>(in.gcount());
    if (const void* nul = std::memchr(chunk, '\0', got))
      throw ConfigError("config file '" + path + "': holds a NUL byte at byte " +
                        std::to_string(text.size() + (static_cast<const char*>(nul) - chunk)) +
                        " (a config is JSON text)");
    if (text.size() + got > kMaxConfigBytes)
      throw ConfigError("config file '" + path + "': larger than " +
                        std::to_string(kMaxConfigBytes >> 20) + " MiB (a config is a few KiB)");
    text.append(chunk, got);
  }
  return text;
}

json parse_config_text(const std::string& text, const std::string& where, const std::string& base) {
  try {
    return json::parse(text, ParseGuard(where, base), true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    throw JsonSyntaxError(e.what(), e.byte);
  } catch (const json::exception& e) {  // a number beyond double's range (1e999)
    throw JsonSyntaxError(e.what(), 0);
  }
}

void require_utf8(const std::string& text, const std::string& what) {
  try {
    (void)json(text).dump();  // nlohmann's strict check: the byte and its value
  } catch (const json::type_error& e) {
    throw ConfigError(what + ": is not valid UTF-8 (" + e.what() + ")");
  }
}

}  // namespace staghorn::io
