#pragma once
// JSON text as a config takes it, from the config file and from each --set value: stricter than
// nlohmann's parser alone, and bounded in what it reads, so that no input (a huge or endless file,
// a deeply nested one) costs more than its size.

#include <cstddef>
#include <string>

#include "io/schema.hpp"

namespace staghorn::io {

// A config file larger than this is refused (a config is a few KiB; /dev/zero never ends).
constexpr std::size_t kMaxConfigBytes = 16u << 20;
// Objects and arrays nested deeper than this are refused (a config needs about 6 levels).
constexpr int kMaxConfigDepth = 64;

// Text that is not JSON at all (a syntax error or a number beyond double's range), as opposed to
// JSON that breaks a config's rules (a duplicate key, too deep).
class JsonSyntaxError : public ConfigError {
 public:
  JsonSyntaxError(const std::string& message, std::size_t byte)
      : ConfigError(message), byte(byte) {}
  std::size_t byte;  // where the parser stopped (1-based, as nlohmann counts)
};

// The whole file at `path`, at most kMaxConfigBytes, refused at its first NUL byte (text after
// one would be ignored by the parser). ConfigError naming the file.
std::string read_config_text(const std::string& path);

// Parses `text` as a config's JSON: each key at most once per object ("PATH: duplicate key in
// WHERE"), at most kMaxConfigDepth levels, strings of valid UTF-8, comments allowed. `where`
// names the text in messages ("config file 'c.json'"); `base` is the dotted path the text is
// the value of (a --set value's path), so that keys are named from the config's root. Throws
// JsonSyntaxError for text that is not JSON, ConfigError for the rest.
json parse_config_text(const std::string& text, const std::string& where,
                       const std::string& base = "");

// Throws ConfigError "WHAT: is not valid UTF-8 (byte N)" unless `text` is (JSON strings must be).
void require_utf8(const std::string& text, const std::string& what);

}  // namespace staghorn::io
