#include "models/app/output_dir.hpp"

#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "io/schema.hpp"
#include "io/snapshot.hpp"

namespace staghorn::app {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxComponent = 255;  // NAME_MAX of the usual Linux file systems

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Why a directory takes no new files although its permissions allow (root may write anywhere):
// a read-only mount, or a pseudo file system (/proc, /sys); "" where it does.
std::string holds_no_files(const fs::path& dir) {
  struct statvfs v {};
  if (statvfs(dir.c_str(), &v) == 0 && (v.f_flag & ST_RDONLY))
    return "is on a read-only file system";
  constexpr long kProc = 0x9fa0, kSysfs = 0x62656572;  // statfs(2)'s PROC_SUPER_MAGIC, SYSFS_MAGIC
  struct statfs f {};
  if (statfs(dir.c_str(), &f) == 0 && (f.f_type == kProc || f.f_type == kSysfs))
    return "is on a pseudo file system (proc or sysfs)";
  return "";
}

// A file of a snapshot series: NAME_<digits>SUFFIX.
struct SeriesFile {
  fs::path path;
  std::string prefix, digits;
};

// The files of `dir` named NAME_<digits>SUFFIX, of every prefix.
std::vector<SeriesFile> series_files(const std::string& dir, const std::string& suffix) {
  std::vector<SeriesFile> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!ends_with(name, suffix)) continue;
    const std::string stem = name.substr(0, name.size() - suffix.size());
    const auto cut = stem.rfind('_');
    if (cut == std::string::npos || cut == 0 || cut + 1 == stem.size()) continue;
    const std::string digits = stem.substr(cut + 1);
    if (digits.find_first_not_of("0123456789") == std::string::npos)
      out.push_back({entry.path(), stem.substr(0, cut), digits});
  }
  return out;
}

// Whether a series file is a run's snapshot: one of the run's own prefix by its name alone (as a
// damaged one would be), one of another prefix where staghorn wrote it (a user's file named
// NAME_<digits>.nc is not).
bool is_snapshot(const SeriesFile& f, const std::string& prefix) {
  return f.prefix == prefix || io::snapshot_stamp(f.path.string()).has_value();
}

// Whether a series file's step is after `step` (its digits, however many).
bool later_than(const SeriesFile& f, long long step) {
  const std::string digits =
      f.digits.substr(std::min(f.digits.find_first_not_of('0'), f.digits.size() - 1));
  return digits.size() > 18 || std::stoll(digits) > step;
}

// The first file of another run in the directory, or "" (see check_previous_run).
std::string other_run_file(const OutputPlan& plan) {
  for (const SeriesFile& f : series_files(plan.dir, ".nc")) {
    if (plan.continues && f.prefix == plan.prefix) continue;  // the series it continues
    if (is_snapshot(f, plan.prefix)) return f.path.string();
  }
  if (plan.continues) return "";
  for (const char* name : {"diagnostics.csv", "diagnostics.nc"}) {
    std::error_code ec;
    const fs::path p = fs::path(plan.dir) / name;
    if (fs::exists(p, ec)) return p.string();
  }
  return "";
}

void remove_all(const std::vector<fs::path>& files) {
  std::error_code ec;
  for (const fs::path& p : files) fs::remove(p, ec);
}

// --overwrite: every prefix's snapshots (and their stale .tmp) and the indices of those series.
void delete_other_runs(const OutputPlan& plan) {
  std::vector<fs::path> gone;
  for (const SeriesFile& f : series_files(plan.dir, ".nc")) {
    if (!is_snapshot(f, plan.prefix)) continue;
    gone.push_back(f.path);
    gone.push_back(fs::path(plan.dir) / (f.prefix + ".xmf"));
  }
  for (const SeriesFile& f : series_files(plan.dir, ".nc.tmp")) gone.push_back(f.path);
  remove_all(gone);
}

// An in-place restart: the snapshots of its prefix after its step, renamed NAME.superseded.
std::vector<std::string> move_later_aside(const OutputPlan& plan) {
  std::vector<std::string> moved;
  for (const SeriesFile& f : series_files(plan.dir, ".nc")) {
    if (f.prefix != plan.prefix || !later_than(f, *plan.continues)) continue;
    const std::string aside = f.path.string() + ".superseded";
    std::error_code ec;
    fs::rename(f.path, aside, ec);
    if (ec) throw Error("cannot move '" + f.path.string() + "' aside: " + ec.message());
    moved.push_back(aside);
  }
  std::sort(moved.begin(), moved.end());
  return moved;
}

}  // namespace

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
  if (const std::string why = holds_no_files(existing); !why.empty())
    bad((existing == path ? "" : "cannot be created: '" + existing.string() + "' ") + why);
  if (existing == path && access(path.c_str(), W_OK | X_OK) != 0) bad("is not writable");
}

bool restarts_in_place(const std::string& restart, const std::string& dir,
                       const std::string& prefix) {
  std::error_code ec;
  fs::path parent = fs::path(restart).parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::equivalent(parent, dir, ec)) return false;
  const std::string name = fs::path(restart).filename().string();
  const std::string head = prefix + "_";
  if (name.compare(0, head.size(), head) != 0 || !ends_with(name, ".nc")) return false;
  const std::string digits = name.substr(head.size(), name.size() - head.size() - 3);
  return !digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos;
}

void check_previous_run(const OutputPlan& plan) {
  if (plan.overwrite) return;
  const std::string other = other_run_file(plan);
  if (other.empty()) return;
  const bool snapshot = ends_with(other, ".nc") && fs::path(other).filename() != "diagnostics.nc";
  throw io::ConfigError("output.dir: '" + plan.dir + "' holds " +
                        (snapshot ? "snapshots" : "the diagnostics") + " of another run (" + other +
                        "); choose another --output, restart from one of its snapshots with "
                        "--restart, or pass --overwrite to delete them");
}

TakenDir take_output_dir(const OutputPlan& plan) {
  std::error_code made;
  const bool created = fs::create_directories(plan.dir, made);
  if (made)
    throw io::ConfigError("output.dir (or --output): '" + plan.dir +
                          "' cannot be created: " + made.message());
  TakenDir taken;
  try {
    taken.lock = std::make_unique<OutputLock>(plan.dir);
    check_previous_run(plan);  // again, now that no other run can start writing
  } catch (...) {
    taken.lock.reset();
    std::error_code ec;
    if (created) fs::remove(plan.dir, ec);
    throw;
  }
  std::vector<fs::path> stale;
  for (const SeriesFile& f : series_files(plan.dir, ".nc.tmp"))
    if (f.prefix == plan.prefix) stale.push_back(f.path);
  remove_all(stale);
  if (plan.overwrite) delete_other_runs(plan);
  if (plan.continues) taken.moved_aside = move_later_aside(plan);
  return taken;
}

}  // namespace staghorn::app
