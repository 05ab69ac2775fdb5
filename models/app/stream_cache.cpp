#include "models/app/stream_cache.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "io/schema.hpp"

namespace staghorn::app {
namespace {

namespace fs = std::filesystem;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

std::string host_name() {
  char name[256] = {};
  return gethostname(name, sizeof name - 1) == 0 ? name : "unknown host";
}

fs::path file_in(const std::string& dir) { return fs::path(dir) / "host_stream.json"; }

io::json read_all(const std::string& dir) {
  std::ifstream in(file_in(dir));
  if (!in) return io::json::object();
  io::json all = io::json::parse(in, nullptr, false);  // no exception: discarded on error
  return all.is_object() ? all : io::json::object();
}

}  // namespace

std::string stream_cache_dir() {
  if (const std::string d = env("STAGHORN_CACHE_DIR"); !d.empty()) return d;
  if (const std::string d = env("XDG_CACHE_HOME"); !d.empty()) return d + "/staghorn";
  if (const std::string d = env("HOME"); !d.empty()) return d + "/.cache/staghorn";
  return "";
}

std::string stream_key(const ThreadPlan& plan, int node_ranks) {
  return host_name() + " | " + cpu_model() + " | " + std::to_string(plan.cores) +
         " cores for this rank | " + plan.describe(node_ranks);
}

std::optional<StreamReference> kept_stream(const std::string& dir, const std::string& key,
                                           double max_age_s, std::time_t now) {
  if (dir.empty() || !(max_age_s > 0)) return std::nullopt;
  const io::json all = read_all(dir);
  const auto it = all.find(key);
  if (it == all.end() || !it->is_object()) return std::nullopt;
  const io::json& e = *it;
  for (const char* k : {"copy_GBs", "triad_GBs", "array_bytes", "cache_bytes", "measured"})
    if (!e.contains(k) || !e[k].is_number()) return std::nullopt;
  StreamReference r;
  r.stream.copy_GBs = e["copy_GBs"].get<double>();
  r.stream.triad_GBs = e["triad_GBs"].get<double>();
  r.stream.array_bytes = e["array_bytes"].get<std::size_t>();
  r.stream.cache_bytes = e["cache_bytes"].get<std::size_t>();
  r.measured = e["measured"].get<std::time_t>();
  const double age = std::difftime(now, r.measured);
  if (!(r.stream.copy_GBs > 0) || age < 0 || age >= max_age_s) return std::nullopt;
  return r;
}

bool keep_stream(const std::string& dir, const std::string& key, const StreamReference& ref) {
  if (dir.empty()) return false;
  std::error_code ec;
  fs::create_directories(dir, ec);
  io::json all = read_all(dir);
  all[key] = {{"copy_GBs", ref.stream.copy_GBs},
              {"triad_GBs", ref.stream.triad_GBs},
              {"array_bytes", ref.stream.array_bytes},
              {"cache_bytes", ref.stream.cache_bytes},
              {"measured", ref.measured}};
  const fs::path tmp = file_in(dir).string() + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp);
    if (!(out << all.dump(2) << "\n")) {
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, file_in(dir), ec);
  const bool kept = !ec;
  if (!kept) fs::remove(tmp, ec);
  return kept;
}

}  // namespace staghorn::app
