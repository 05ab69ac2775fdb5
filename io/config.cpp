#include "io/config.hpp"

#include <sstream>
#include <string>
#include <vector>

#include "io/json_text.hpp"

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

}  // namespace

json load_json_file(const std::string& path) {
  const std::string text = read_config_text(path);
  const std::string where = "config file '" + path + "'";
  try {
    return parse_config_text(text, where);
  } catch (const JsonSyntaxError& e) {
    if (e.byte == 0) throw ConfigError(where + ": " + e.what());  // e.g. 1e999: beyond double
    throw ConfigError(where + ": malformed JSON at " + position(text, e.byte) + " (" + e.what() +
                      ")");
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
  require_utf8(assignment, "--set");
  json value;
  try {  // JSON, held to a config file's rules (no duplicate key)
    value = parse_config_text(text, "--set " + assignment, path);
  } catch (const JsonSyntaxError&) {  // not JSON: the text itself
    value = text;
  }

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
