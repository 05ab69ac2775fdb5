#include "models/app/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "core/error.hpp"
#include "io/schema.hpp"

namespace staghorn::app {
namespace {

// Who holds the lock, for the message of a run refused by it.
std::string holder_text() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  char since[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(since, sizeof since, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return "pid " + std::to_string(getpid()) + " on host " + host + " since " + since;
}

std::string read_holder(int fd) {
  char text[512] = {};
  const ssize_t got = pread(fd, text, sizeof text - 1, 0);
  std::string holder = got > 0 ? std::string(text, static_cast<std::size_t>(got)) : "";
  while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
  return holder.empty() ? "a run that has not written its name yet" : holder;
}

// Whether `fd` is still the file at `path`: a holder that ended removed the file it locked, and
// a lock on that unlinked file would guard nothing.
bool still_linked(int fd, const std::string& path) {
  struct stat open_file {
  }, named{};
  return fstat(fd, &open_file) == 0 && stat(path.c_str(), &named) == 0 &&
         open_file.st_dev == named.st_dev && open_file.st_ino == named.st_ino;
}

}  // namespace

OutputLock::OutputLock(const std::string& dir)
    : path_((std::filesystem::path(dir) / kFile).string()) {
  for (;;) {
    fd_ = open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw Error("cannot create the lock file '" + path_ + "': " + std::strerror(errno));
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string holder = err == EWOULDBLOCK ? read_holder(fd_) : "";
      close(fd_);
      fd_ = -1;
      if (err != EWOULDBLOCK) throw Error("cannot lock '" + path_ + "': " + std::strerror(err));
      throw io::ConfigError("output.dir: '" + dir + "' is in use by another run (" + holder +
                            "); wait for it to end or choose another --output");
    }
    if (still_linked(fd_, path_)) break;
    close(fd_);  // taken over from a run that was just ending: lock the file that is there now
  }
  const std::string holder = holder_text() + "\n";
  const bool noted = ftruncate(fd_, 0) == 0 &&
                     pwrite(fd_, holder.data(), holder.size(), 0) == ssize_t(holder.size());
  (void)noted;  // without the note the lock still holds; a refused run says less of its holder
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  unlink(path_.c_str());  // while still held: a run waiting on this file then tries again
  close(fd_);
}

}  // namespace staghorn::app
