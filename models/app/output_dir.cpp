#include "models/app/output_dir.hpp"

#include <unistd.h>

#include <filesystem>
#include <system_error>
#include <vector>

#include "io/schema.hpp"

namespace staghorn::app {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxComponent = 255;  // NAME_MAX of the usual Linux file systems
constexpr std::size_t kMaxPrefix = 200;

bool starts_with(const std::string& s, const std::string& head) {
  return s.compare(0, head.size(), head) == 0;
}
bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Files in `dir` named PREFIX_<digits>SUFFIX.
std::vector<fs::path> files_of_run(const std::string& dir, const std::string& prefix,
                                   const std::string& suffix) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!starts_with(name, prefix + "_") || !ends_with(name, suffix)) continue;
    const std::string step =
        name.substr(prefix.size() + 1, name.size() - prefix.size() - 1 - suffix.size());
    if (!step.empty() && step.find_first_not_of("0123456789") == std::string::npos)
      out.push_back(entry.path());
  }
  return out;
}

}  // namespace

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
}

void check_output_dir(const std::string& dir) {
  auto bad = [&](const std::string& why) {
    throw io::ConfigError("output.dir (or --output): '" + dir + "' " + why);
  };
  if (dir.empty()) bad("is empty");
  if (dir.find('\0') != std::string::npos) bad("contains a NUL character");
  const fs::path path(dir);
  for (const fs::path& part : path)
    if (part.string().size() > kMaxComponent)
      bad("has a component of " + std::to_string(part.string().size()) + " bytes (at most " +
          std::to_string(kMaxComponent) + ")");
  // The deepest existing ancestor must be a directory we may write into (or `dir` itself).
  std::error_code ec;
  fs::path existing = path;
  while (!existing.empty() && !fs::exists(existing, ec)) existing = existing.parent_path();
  if (existing.empty()) existing = ".";
  if (!fs::is_directory(existing, ec))
    bad(existing == path ? "is a file, not a directory"
                         : "cannot be created: '" + existing.string() + "' is a file");
  if (existing != path && access(existing.c_str(), W_OK | X_OK) != 0)
    bad("cannot be created: '" + existing.string() + "' is not writable");
  if (existing == path && access(path.c_str(), W_OK | X_OK) != 0) bad("is not writable");
}

void check_previous_run(const std::string& dir, const std::string& prefix, bool restart,
                        bool overwrite) {
  if (restart || overwrite) return;
  const std::vector<fs::path> old = files_of_run(dir, prefix, ".nc");
  if (old.empty()) return;
  throw io::ConfigError("output.dir: '" + dir + "' holds snapshots of another run (" +
                        old.front().string() +
                        "); choose another --output, restart from one of them with --restart, "
                        "or pass --overwrite to delete them");
}

void take_output_dir(const std::string& dir, const std::string& prefix, bool overwrite) {
  std::error_code made;
  fs::create_directories(dir, made);
  if (made)
    throw io::ConfigError("output.dir (or --output): '" + dir +
                          "' cannot be created: " + made.message());
  std::vector<fs::path> gone = files_of_run(dir, prefix, ".nc.tmp");
  // The old diagnostics are replaced by the new run's own (diagnostics.nc moved aside to .prev).
  if (overwrite)
    for (const fs::path& p : files_of_run(dir, prefix, ".nc")) gone.push_back(p);
  std::error_code ec;
  for (const fs::path& p : gone) fs::remove(p, ec);
}

}  // namespace staghorn::app
