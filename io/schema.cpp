#include "io/schema.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <regex>
#include <sstream>

namespace staghorn::io {
namespace {

std::vector<std::string> split(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  return parts;
}

std::string join(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

std::string kind_of(const json& v) {
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  return v.type_name();
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw ConfigError(path + ": " + what);
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

// A limit as the user would write it: an integer's digits, else a short decimal.
std::string limit_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e16) return std::to_string(static_cast<long long>(v));
  std::ostringstream out;
  out << v;
  return out.str();
}

void check_range(const Option& o, const std::string& path, double v) {
  if (!std::isfinite(v)) fail(path, "must be a finite number");
  std::ostringstream got;
  got << std::setprecision(12) << v;
  if (const auto lo = o.lowest(); lo && (o.min_exclusive ? v <= *lo : v < *lo))
    fail(path, std::string("must be ") + (o.min_exclusive ? "> " : ">= ") + limit_text(*lo) +
                   ", got " + got.str());
  if (const auto hi = o.highest(); hi && v > *hi)
    fail(path, "must be <= " + limit_text(*hi) + ", got " + got.str());
}

// A number without fractional part, written as an integer or not (3, 3.0, 3e0).
bool integral(const json& v) {
  if (v.is_number_integer()) return true;
  return v.is_number_float() && std::isfinite(v.get<double>()) &&
         v.get<double>() == std::floor(v.get<double>());
}

bool is_integer_type(Type t) { return t == Type::integer || t == Type::int3; }

void check_scalar(const Option& o, const std::string& path, const json& v, Type t) {
  switch (t) {
    case Type::integer:
      if (!integral(v))
        fail(path, "expected an integer, got " + v.dump() + " (" + kind_of(v) + ")");
      check_range(o, path, v.get<double>());
      return;
    case Type::number:
      if (!v.is_number())
        fail(path, "expected a number, got " + v.dump() + " (" + kind_of(v) + ")");
      check_range(o, path, v.get<double>());
      return;
    case Type::boolean:
      if (!v.is_boolean())
        fail(path, "expected true or false, got " + v.dump() + " (" + kind_of(v) + ")");
      return;
    default:
      if (!v.is_string())
        fail(path, "expected a string, got " + v.dump() + " (" + kind_of(v) + ")");
      if (!o.choices.empty() &&
          std::find(o.choices.begin(), o.choices.end(), v.get<std::string>()) == o.choices.end()) {
        std::string list;
        for (const auto& c : o.choices) list += (list.empty() ? "" : ", ") + c;
        fail(path, "must be one of " + list + ", got " + v.dump());
      }
  }
}

void check_form(const Option& o, const std::string& path, const json& v) {
  if (o.check) o.check(v);
  if (!o.pattern.empty() && !std::regex_match(v.get<std::string>(), std::regex(o.pattern)))
    fail(path, "must match " + o.pattern + ", got " + v.dump());
}

void check_value(const Option& o, const std::string& path, const json& v) {
  if (v.is_null()) {
    if (o.fallback.is_null()) return;
    fail(path, "may not be null");
  }
  Type element;
  switch (o.type) {
    case Type::int3:
      element = Type::integer;
      break;
    case Type::number3:
      element = Type::number;
      break;
    case Type::bool3:
      element = Type::boolean;
      break;
    case Type::string:
      check_scalar(o, path, v, o.type);
      return check_form(o, path, v);
    default:
      return check_scalar(o, path, v, o.type);
  }
  if (!v.is_array() || v.size() != 3)
    fail(path, "expected an array of 3 " + to_string(element) + "s, got " + v.dump());
  for (std::size_t i = 0; i < 3; ++i)
    check_scalar(o, path + "[" + std::to_string(i) + "]", v[i], element);
}

// An integer key's value as an integer (3.0 given: 3), so that it reads back as one.
void store_integers(const Option& o, json& v) {
  if (!is_integer_type(o.type) || v.is_null()) return;
  auto as_integer = [](json& x) {
    if (x.is_number_float()) x = static_cast<long long>(x.get<double>());
  };
  if (o.type == Type::int3)
    for (json& x : v) as_integer(x);
  else
    as_integer(v);
}

}  // namespace

std::string to_string(Type t) {
  switch (t) {
    case Type::integer:
      return "integer";
    case Type::number:
      return "number";
    case Type::boolean:
      return "boolean";
    case Type::string:
      return "string";
    case Type::int3:
      return "[integer x3]";
    case Type::number3:
      return "[number x3]";
    case Type::bool3:
      return "[boolean x3]";
    case Type::list:
      return "[object ...]";
  }
  return "?";
}

std::optional<double> Option::lowest() const {
  if (min || !is_integer_type(type)) return min;
  return static_cast<double>(INT_MIN);
}

std::optional<double> Option::highest() const {
  if (max || !is_integer_type(type)) return max;
  return static_cast<double>(INT_MAX);
}

Option& Option::of(const Schema& element) {
  items = std::make_shared<const Schema>(element);
  return *this;
}

Option& Schema::add(std::string path, Type type, json fallback, std::string description) {
  Option& o = options_.emplace_back();
  o.path = std::move(path);
  o.type = type;
  o.fallback = std::move(fallback);
  o.description = std::move(description);
  return o;
}

const Option* Schema::find(const std::string& path) const {
  for (const auto& o : options_)
    if (o.path == path) return &o;
  return nullptr;
}

bool Schema::is_section(const std::string& path) const {
  const std::string prefix = path + ".";
  return std::any_of(options_.begin(), options_.end(),
                     [&](const Option& o) { return o.path.rfind(prefix, 0) == 0; });
}

void Schema::check_object(const json& obj, const std::string& prefix, const std::string& shown,
                          std::vector<std::string>& errors) const {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    try {
      check_key(it.value(), join(prefix, it.key()), join(shown, it.key()), errors);
    } catch (const ConfigError& e) {
      errors.push_back(e.what());
    }
  }
}

void Schema::check_key(const json& value, const std::string& path, const std::string& shown,
                       std::vector<std::string>& errors) const {
  if (const Option* o = find(path)) {
    if (o->type == Type::list) return check_list(*o, value, shown, errors);
    return check_value(*o, shown, value);
  }
  if (!is_section(path)) {
    // The suggestion is a path of this schema: shown as the user sees that place.
    std::string hint = suggestion(path);
    if (!hint.empty()) {
      const std::string root = shown.substr(0, shown.size() - path.size());
      hint = " (did you mean " + root + hint + "?)";
    }
    fail(shown, "unknown key" + hint);
  }
  if (!value.is_object()) fail(shown, "expected an object, got " + value.dump());
  check_object(value, path, shown, errors);
}

// Each element is an object of the item schema's keys, named by its index: "a.list[2].key".
void Schema::check_list(const Option& o, const json& value, const std::string& shown,
                        std::vector<std::string>& errors) const {
  if (!value.is_array()) fail(shown, "expected an array of objects, got " + value.dump());
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string at = shown + "[" + std::to_string(i) + "]";
    if (!value[i].is_object())
      errors.push_back(at + ": expected an object, got " + value[i].dump());
    else
      o.items->check_object(value[i], "", at, errors);
  }
}

// The closest key of the same depth (as " (did you mean KEY?)" after the caller's prefix), or "".
std::string Schema::suggestion(const std::string& path) const {
  constexpr std::size_t kLongest = 200;  // no key is longer: a longer one is no typo of any
  if (path.size() > kLongest) return "";
  std::string best;
  std::size_t best_d = 3;
  const auto depth = split(path).size();
  for (const auto& o : options_) {
    const auto parts = split(o.path);
    if (parts.size() < depth) continue;
    std::string cand;
    for (std::size_t i = 0; i < depth; ++i) cand = join(cand, parts[i]);
    const std::size_t d = edit_distance(cand, path);
    if (d < best_d) best_d = d, best = cand;
  }
  return best;
}

json Schema::resolve(const json& user, const std::string& config_dir) const {
  if (!user.is_object()) throw ConfigError("config: the top level must be a JSON object");
  std::vector<std::string> errors;
  check_object(user, "", "", errors);
  if (errors.size() == 1) throw ConfigError(errors.front());
  if (!errors.empty()) {
    std::string all = std::to_string(errors.size()) + " errors in the configuration:";
    for (const std::string& e : errors) all += "\n  " + e;
    throw ConfigError(all);
  }
  return complete(user, config_dir);
}

// The checked `user` with every default filled in, list elements included.
json Schema::complete(const json& user, const std::string& config_dir) const {
  json out = json::object();
  for (const auto& o : options_) {
    json* node = &out;
    const json* given = &user;
    for (const auto& part : split(o.path)) {
      node = &(*node)[part];
      given = (given && given->is_object() && given->contains(part)) ? &(*given)[part] : nullptr;
    }
    *node = given ? *given : o.fallback;
    store_integers(o, *node);
    if (o.type == Type::list)
      for (json& element : *node) element = o.items->complete(element, config_dir);
    if (o.config_relative && node->is_string() && !config_dir.empty()) {
      const std::filesystem::path file = node->get<std::string>();
      if (!file.empty() && file.is_relative())
        *node = (std::filesystem::path(config_dir) / file).lexically_normal().string();
    }
  }
  return out;
}

void Schema::describe(std::ostream& out) const { describe(out, ""); }

// Keys under `prefix` (a list's elements: "stokes.materials.phases[]."), sections by first part.
void Schema::describe(std::ostream& out, const std::string& prefix) const {
  std::string section;
  for (const auto& o : options_) {
    const std::string s = o.path.substr(0, o.path.find('.'));
    if (prefix.empty() && s != section) out << "\n[" << (section = s) << "]\n";
    out << "  " << prefix << o.path << " (" << to_string(o.type) << ", default "
        << o.fallback.dump();
    if (const auto lo = o.lowest())
      out << ", " << (o.min_exclusive ? "> " : ">= ") << limit_text(*lo);
    if (const auto hi = o.highest()) out << ", <= " << limit_text(*hi);
    if (!o.pattern.empty()) out << ", matching " << o.pattern;
    if (!o.choices.empty()) {
      out << ", one of";
      for (const auto& c : o.choices) out << " " << c;
    }
    out << ")\n      " << o.description << "\n";
    if (o.type == Type::list) o.items->describe(out, prefix + o.path + "[].");
  }
}

namespace {

json element_schema(Type t) {
  switch (t) {
    case Type::integer:
    case Type::int3:
      return {{"type", "integer"}};
    case Type::number:
    case Type::number3:
      return {{"type", "number"}};
    case Type::boolean:
    case Type::bool3:
      return {{"type", "boolean"}};
    default:
      return {{"type", "string"}};
  }
}

// One key: its values (per element for the three-component types) and what it means.
json option_schema(const Option& o) {
  json e = element_schema(o.type);
  auto bound = [&](double v) {
    return is_integer_type(o.type) ? json(static_cast<long long>(v)) : json(v);
  };
  if (const auto lo = o.lowest()) e[o.min_exclusive ? "exclusiveMinimum" : "minimum"] = bound(*lo);
  if (const auto hi = o.highest()) e["maximum"] = bound(*hi);
  if (!o.choices.empty()) e["enum"] = o.choices;
  if (!o.pattern.empty()) e["pattern"] = o.pattern;
  json s = e;
  if (o.type == Type::list) s = {{"type", "array"}, {"items", o.items->json_schema()}};
  if (o.type == Type::int3 || o.type == Type::number3 || o.type == Type::bool3)
    s = {{"type", "array"}, {"items", e}, {"minItems", 3}, {"maxItems", 3}};
  if (o.fallback.is_null()) s = {{"anyOf", json::array({s, {{"type", "null"}}})}};
  s["description"] = o.description;
  s["default"] = o.fallback;
  return s;
}

json object_schema() {
  return {{"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}};
}

}  // namespace

json Schema::json_schema() const {
  json root = object_schema();
  for (const auto& o : options_) {
    json* node = &root;
    const auto parts = split(o.path);
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
      json& child = (*node)["properties"][parts[i]];
      if (child.is_null()) child = object_schema();
      node = &child;
    }
    (*node)["properties"][parts.back()] = option_schema(o);
  }
  return root;
}

const json& at_path(const json& config, const std::string& path) {
  const json* node = &config;
  for (const auto& part : split(path)) {
    if (!node->is_object() || !node->contains(part)) throw ConfigError(path + ": missing");
    node = &(*node)[part];
  }
  return *node;
}

}  // namespace staghorn::io
