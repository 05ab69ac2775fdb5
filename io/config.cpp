#include "io/config.hpp"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace staghorn::io {
namespace {

// Line and column of a byte offset, for syntax errors.
std::string position(const std::string& text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n')
      ++line, col = 1;
    else
      ++col;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

// Refuses a key that appears twice in one object (nlohmann keeps the last silently, so a user's
// first value would be ignored without a word). Tracks the open objects and the path to them.
class DuplicateKeys {
 public:
  explicit DuplicateKeys(std::string file) : file_(std::move(file)) {}
  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    (void)depth;
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start: {
        // An element of an array has no key: it takes the array's path.
        const std::string path = !in_array_.empty() && in_array_.back() ? path_.back() : pending_;
        path_.push_back(path);
        keys_.emplace_back();
        in_array_.push_back(event == json::parse_event_t::array_start);
        break;
      }
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
          throw ConfigError(pending_ + ": duplicate key in config file '" + file_ +
                            "' (each key may appear once in an object)");
        break;
      }
      default:
        break;
    }
    return true;
  }

 private:
  std::string dotted(const std::string& key) const {
    const std::string& parent = path_.empty() ? std::string() : path_.back();
    return parent.empty() ? key : parent + "." + key;
  }
  std::string file_;
  std::vector<std::set<std::string>> keys_;  // per open object (arrays get an unused entry)
  std::vector<std::string> path_;            // dotted path of each open container
  std::vector<bool> in_array_;               // whether each open container is an array
  std::string pending_;                      // the last key read: the next container's path
};

}  // namespace

json load_json_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError("config file '" + path + "': is a directory, not a JSON file");
  std::ifstream in(path);
  if (!in)
    throw ConfigError("config file '" + path + "': cannot be opened (missing or unreadable)");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  try {
    return json::parse(text, DuplicateKeys(path), true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    throw ConfigError("config file '" + path + "': malformed JSON at " + position(text, e.byte) +
                      " (" + e.what() + ")");
  } catch (const json::exception& e) {  // e.g. a number beyond double's range (1e999)
    throw ConfigError("config file '" + path + "': " + e.what());
  }
}

namespace {

// One dotted part of an override's path: a key and the array indices after it ("phases[0]").
struct PathStep {
  std::string key;
  std::vector<int> indices;
};

// "a.b[0].c" as steps; none where the path is malformed, with `why` saying how.
std::vector<PathStep> parse_path(const std::string& path, std::string& why) {
  std::vector<PathStep> steps;
  std::stringstream ss(path);
  for (std::string part; std::getline(ss, part, '.');) {
    PathStep step;
    const auto lb = part.find('[');
    step.key = part.substr(0, lb);
    for (auto at = lb; at != std::string::npos; at = part.find('[', at)) {
      const auto rb = part.find(']', at);
      const std::string digits = rb == std::string::npos ? "" : part.substr(at + 1, rb - at - 1);
      const bool next_ok =
          rb != std::string::npos && (rb + 1 == part.size() || part[rb + 1] == '[');
      if (!next_ok || digits.empty() || digits.size() > 6 ||
          digits.find_first_not_of("0123456789") != std::string::npos) {
        why = "bad array index in '" + path + "' (expected key[N], N >= 0)";
        return {};
      }
      step.indices.push_back(std::stoi(digits));
      at = rb + 1;
    }
    if (step.key.empty()) {
      why = "empty key in '" + path + "'";
      return {};
    }
    steps.push_back(step);
  }
  if (steps.empty() || path.back() == '.') why = "empty key in '" + path + "'";
  return steps;
}

}  // namespace

void apply_override(json& config, const std::string& assignment) {
  const auto fail = [&](const std::string& why) {
    throw ConfigError("--set " + assignment + ": " + why);
  };
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) fail("expected path=value");
  const std::string path = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  json value = json::parse(text, nullptr, false);
  if (value.is_discarded()) value = text;

  std::string why;
  const std::vector<PathStep> steps = parse_path(path, why);
  if (!why.empty()) fail(why);

  json updated = config;  // changed only if the whole assignment succeeds
  json* node = &updated;
  std::string walked;  // the path up to `node`, for the errors
  for (const PathStep& step : steps) {
    if (node->is_null()) *node = json::object();  // a missing section is created
    if (!node->is_object())
      fail("'" + walked + "' is " + node->type_name() + ", not an object with key '" + step.key +
           "'");
    node = &(*node)[step.key];
    walked += (walked.empty() ? "" : ".") + step.key;
    for (const int index : step.indices) {
      if (!node->is_array() || index >= static_cast<int>(node->size()))
        fail(walked + " has no element " + std::to_string(index) +
             " (set the whole array instead)");
      node = &(*node)[index];
      walked += "[" + std::to_string(index) + "]";
    }
  }
  *node = value;
  config = std::move(updated);
}

json load_config(const std::string& path, const std::vector<std::string>& overrides) {
  json config = load_json_file(path);
  if (!config.is_object())
    throw ConfigError("config file '" + path + "': top level must be an object");
  for (const auto& o : overrides) apply_override(config, o);
  return config;
}

}  // namespace staghorn::io
