#include "models/output_prefix.hpp"

#include <cstddef>

#include "io/schema.hpp"

namespace staghorn {
namespace {

constexpr std::size_t kMaxPrefix = 200;

// The characters of kPrefixPattern: ASCII letters and digits, '.', '_', '+', '-'.
bool safe_in_prefix(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '+' || c == '-';
}

// A character for a message: itself in quotes, or its byte's value where it is not ASCII.
std::string shown(char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (byte < 0x80) return "'" + std::string(1, c) + "'";
  static const char* const hex = "0123456789abcdef";
  return std::string("the byte 0x") + hex[byte >> 4] + hex[byte & 15];
}

}  // namespace

const char* const kPrefixPattern = "^(?!\\.\\.?$)[A-Za-z0-9._+-]{1,200}$";

void check_prefix(const std::string& prefix) {
  auto bad = [&](const std::string& why) {
    throw io::ConfigError("output.prefix: " + why +
                          " (snapshot files are PREFIX_STEP.nc in the "
                          "output directory)");
  };
  if (prefix.empty()) bad("must not be empty");
  if (prefix.size() > kMaxPrefix)
    bad("is " + std::to_string(prefix.size()) + " bytes long, at most " +
        std::to_string(kMaxPrefix) + " are allowed");
  if (prefix == "." || prefix == "..") bad("'" + prefix + "' is not a file name");
  for (const char c : prefix) {
    if (c == '/') bad("'" + prefix + "' contains '/': it must be a plain file name");
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      bad("contains a NUL or control character");
  }
  for (const char c : prefix)
    if (!safe_in_prefix(c))
      bad("'" + prefix + "' contains " + shown(c) +
          ": only letters, digits, '.', '_', '+' and '-' may appear (the ParaView index names "
          "snapshots in XML and HDF5 paths)");
}

}  // namespace staghorn
