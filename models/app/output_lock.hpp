#pragma once
// One run per output directory: an advisory lock (flock) on OUTPUT/.staghorn.lock, held by rank 0
// for the run's life, so that a second run into the same directory (started at the same instant,
// a restart, --overwrite) is refused with the holder named instead of mixing its files with the
// first's. The file says who holds it and is removed when the run ends; one that a killed run left
// holds no lock (the kernel drops it with the process) and is taken over.

#include <string>

namespace staghorn::app {

class OutputLock {
 public:
  // The name of the lock file in an output directory.
  static constexpr const char* kFile = ".staghorn.lock";

  // Takes the lock of the existing directory `dir`. Throws ConfigError naming the holder
  // ("output.dir: 'out' is in use by another run (pid 12 on host h since T)") when another
  // process holds it, Error when the file cannot be made.
  explicit OutputLock(const std::string& dir);
  // Removes the lock file, then releases the lock.
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace staghorn::app
