#include "io/records.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/decimal.hpp"
#include "core/error.hpp"

namespace staghorn::io {
namespace {

int open_append(const std::string& path, int flags) {
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | flags, 0644);
  if (fd < 0) throw Error("cannot write '" + path + "': " + std::strerror(errno));
  return fd;
}

// Writes `text` at the end of the file (`size` bytes long before), whole: on a failure the file is
// cut back to `size` and Error thrown.
void append_whole(int fd, long long size, const std::string& text, const std::string& path) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = n < 0 ? errno : EIO;
      const bool cut = ftruncate(fd, static_cast<off_t>(size)) == 0;
      (void)cut;  // where even that fails, the message still says the write did
      throw Error("cannot write '" + path + "': " + std::strerror(err));
    }
    done += static_cast<std::size_t>(n);
  }
}

std::string joined(const std::vector<std::string>& columns) {
  std::string out;
  for (std::size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + columns[c];
  return out;
}

// A row's step: its first number.
double step_of(const std::string& row, const std::string& path) {
  char* end = nullptr;
  const double step = std::strtod(row.c_str(), &end);
  if (end == row.c_str() || (*end != ',' && *end != '\0'))
    throw Error("'" + path +
                "' has a row that does not start with a step: move the file away to "
                "restart");
  return step;
}

// The lines of an earlier run's file to keep: its header (which must be `header`) and the whole
// rows whose step is at most `last`.
std::string kept_rows(const std::string& path, const std::string& header, long long last) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::string out, line;
  const std::string all = text.str();
  std::size_t at = 0;
  for (bool first = true; at < all.size(); first = false) {
    const std::size_t end = all.find('\n', at);
    if (end == std::string::npos) break;  // a partial last line: not a row
    line = all.substr(at, end - at);
    at = end + 1;
    if (first && line != header)
      throw Error("'" + path + "' holds the columns (" + line + "), this run writes (" + header +
                  "): move the file away to restart");
    if (first || step_of(line, path) <= static_cast<double>(last)) out += line + "\n";
  }
  return out;
}

}  // namespace

void append_json_line(const std::string& path, const json& record) {
  const int fd = open_append(path, O_CREAT);
  const long long size = lseek(fd, 0, SEEK_END);
  try {
    append_whole(fd, size, record.dump() + "\n", path);
  } catch (...) {
    close(fd);
    throw;
  }
  close(fd);
}

CsvSeries::CsvSeries(const std::string& path, const std::vector<std::string>& columns,
                     std::optional<long long> resume_after)
    : path_(path) {
  const std::string header = joined(columns);
  std::error_code ec;
  std::string text = header + "\n";
  fresh_ = !resume_after || !std::filesystem::exists(path, ec);
  if (!fresh_) text = kept_rows(path, header, *resume_after);
  // Written beside the file, then renamed onto it: a failure leaves the old file whole.
  const std::string tmp = path + ".tmp";
  fd_ = open_append(tmp, O_CREAT | O_TRUNC);
  try {
    append_whole(fd_, 0, text, tmp);
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
      throw Error("cannot rename '" + tmp + "' onto '" + path + "': " + std::strerror(errno));
  } catch (...) {
    close(fd_);
    std::remove(tmp.c_str());
    throw;
  }
  size_ = static_cast<long long>(text.size());
}

CsvSeries::~CsvSeries() { close(fd_); }

void CsvSeries::row(const std::vector<double>& values) {
  std::string line;
  for (std::size_t c = 0; c < values.size(); ++c) line += (c ? "," : "") + shortest(values[c]);
  line += "\n";
  append_whole(fd_, size_, line, path_);
  size_ += static_cast<long long>(line.size());
}

}  // namespace staghorn::io
