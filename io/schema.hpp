#pragma once
#include <deque>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace staghorn::io {

using json = nlohmann::json;

// A configuration the user must fix: the message starts with the JSON path of the offending key.
class ConfigError : public Error {
 public:
  using Error::Error;
};

// list: an array of objects, each checked against the option's own item schema (Option::of).
// integer (and int3): a number without fractional part (3, 3.0 and 3e0 alike, as JSON Schema
// has it), stored as an integer; within a 32-bit int unless the option sets its own range.
// The largest integer a key may widen its range to (2^53 - 1: every integer up to it is a double,
// which range checks compare in); e.g. seeds.
constexpr double kLargestExactInteger = 9007199254740991.0;

enum class Type { integer, number, boolean, string, int3, number3, bool3, list };
std::string to_string(Type t);

class Schema;

// One documented key: its JSON path (dots between objects), type, default and meaning, and the
// values it accepts. A default of null means "unset" and accepts null from the user too.
struct Option {
  std::string path;
  Type type;
  json fallback;
  std::string description;
  std::optional<double> min, max;
  bool min_exclusive = false;
  std::vector<std::string> choices;
  // Type::list: the keys of each element (paths relative to the element).
  std::shared_ptr<const Schema> items;
  // A file name: resolve() makes a relative one relative to the config file's directory.
  bool config_relative = false;
  // A string's form as a regular expression (ECMAScript, the grammar of both std::regex and
  // JSON Schema's "pattern"), and a check that explains what is wrong before the pattern is
  // tried (it throws ConfigError naming the key).
  std::string pattern;
  std::function<void(const json&)> check;

  Option& at_least(double v) { return min = v, min_exclusive = false, *this; }
  Option& above(double v) { return min = v, min_exclusive = true, *this; }
  Option& at_most(double v) { return max = v, *this; }
  Option& one_of(std::vector<std::string> c) { return choices = std::move(c), *this; }
  Option& of(const Schema& element);
  Option& relative_to_config() { return config_relative = true, *this; }
  Option& matching(std::string ecma_pattern) { return pattern = std::move(ecma_pattern), *this; }
  Option& checked_by(std::function<void(const json&)> f) { return check = std::move(f), *this; }
  // The range values are checked against: the given one, and an integer's 32-bit range.
  std::optional<double> lowest() const;
  std::optional<double> highest() const;
};

// The schema of a run: every key any layer (run, solver, model) accepts.
class Schema {
 public:
  Option& add(std::string path, Type type, json fallback, std::string description);

  // Checks `user` against the schema and returns it completed with the defaults. Unknown keys,
  // wrong types and out-of-range values throw ConfigError naming the path, e.g.
  // "grid.n[2]: must be >= 1, got 0"; with several, one ConfigError lists them all, one a line,
  // so that a user fixes them in one go. Relative file names of keys marked relative_to_config()
  // are joined to `config_dir` (unchanged when it is empty).
  json resolve(const json& user, const std::string& config_dir = "") const;
  // All keys with type, default and description, grouped by section.
  void describe(std::ostream& out) const;
  // The same as a JSON Schema (draft-07) object: nested objects, no unknown keys, each key's
  // type, default, description, range and choices; editors complete and check configs with it.
  json json_schema() const;
  const std::deque<Option>& options() const { return options_; }

 private:
  const Option* find(const std::string& path) const;
  bool is_section(const std::string& path) const;
  // `prefix` is the path inside this schema, `shown` the same place as the user sees it (a list
  // element's keys are checked by the item schema but named from the config's root).
  void check_object(const json& obj, const std::string& prefix, const std::string& shown,
                    std::vector<std::string>& errors) const;
  void check_key(const json& value, const std::string& path, const std::string& shown,
                 std::vector<std::string>& errors) const;
  void check_list(const Option& o, const json& value, const std::string& shown,
                  std::vector<std::string>& errors) const;
  json complete(const json& user, const std::string& config_dir) const;
  void describe(std::ostream& out, const std::string& prefix) const;
  std::string suggestion(const std::string& path) const;
  std::deque<Option> options_;  // stable references for add()'s chaining
};

// Value at a dotted path of a resolved config (throws ConfigError if absent).
const json& at_path(const json& config, const std::string& path);

}  // namespace staghorn::io
