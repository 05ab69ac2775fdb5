#include "io/schema.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
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

void check_range(const Option& o, const std::string& path, double v) {
  if (!std::isfinite(v)) fail(path, "must be a finite number");
  std::ostringstream got;
  got << std::setprecision(12) << v;
  if (o.min && (o.min_exclusive ? v <= *o.min : v < *o.min)) {
    std::ostringstream lim;
    lim << *o.min;
    fail(path, std::string("must be ") + (o.min_exclusive ? "> " : ">= ") + lim.str() + ", got " +
                   got.str());
  }
  if (o.max && v > *o.max) {
    std::ostringstream lim;
    lim << *o.max;
    fail(path, "must be <= " + lim.str() + ", got " + got.str());
  }
}

void check_scalar(const Option& o, const std::string& path, const json& v, Type t) {
  switch (t) {
    case Type::integer:
      if (!v.is_number_integer())
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
    default:
      return check_scalar(o, path, v, o.type);
  }
  if (!v.is_array() || v.size() != 3)
    fail(path, "expected an array of 3 " + to_string(element) + "s, got " + v.dump());
  for (std::size_t i = 0; i < 3; ++i)
    check_scalar(o, path + "[" + std::to_string(i) + "]", v[i], element);
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
    if (o.min) out << ", " << (o.min_exclusive ? "> " : ">= ") << *o.min;
    if (o.max) out << ", <= " << *o.max;
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
  if (o.min) e[o.min_exclusive ? "exclusiveMinimum" : "minimum"] = *o.min;
  if (o.max) e["maximum"] = *o.max;
  if (!o.choices.empty()) e["enum"] = o.choices;
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
