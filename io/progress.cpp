#include "io/progress.hpp"

#include <cstdio>

namespace staghorn::io {

std::string format_duration(double s) {
  char buf[32];
  const long t = static_cast<long>(s + 0.5);
  std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  return buf;
}

Progress::Progress(std::ostream& out, bool enabled, double interval_s, long long first_step,
                   long long last_step)
    : out_(out), enabled_(enabled), interval_(interval_s), first_(first_step), last_(last_step) {}

void Progress::step(long long step, double time, long long iterations, double residual,
                    double cell_updates) {
  const double now = clock_.seconds();
  const bool due = last_report_ < 0 || now - last_report_ >= interval_ || step == last_;
  if (!enabled_ || !due) return;
  last_report_ = now;
  const double done = static_cast<double>(step - first_) / static_cast<double>(last_ - first_);
  const double eta = done > 0 ? now * (1 - done) / done : 0;
  char line[256];
  std::snprintf(line, sizeof line,
                "step %lld/%lld  t = %.6g  iterations %lld  residual %.3e  %.3e cell updates/s  "
                "ETA %s",
                step, last_, time, iterations, residual, now > 0 ? cell_updates / now : 0.0,
                format_duration(eta).c_str());
  out_ << line << std::endl;
}

}  // namespace staghorn::io
