#include "io/progress.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace staghorn::io {

std::string format_duration(double s) {
  char buf[32];
  const long t = static_cast<long>(s + 0.5);
  std::snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  return buf;
}

Progress::Progress(std::ostream& out, bool enabled, double interval_s, long long first_step,
                   long long last_step, ResidualMeasure measure)
    : out_(out),
      enabled_(enabled),
      interval_(interval_s),
      first_(first_step),
      last_(last_step),
      measure_(std::move(measure)),
      current_(first_step + 1) {}

void Progress::step(long long step, double time, long long iterations, double residual,
                    double cell_updates) {
  current_ = step + 1;
  const double now = clock_.seconds();
  const bool due = last_report_ < 0 || now - last_report_ >= interval_ || step == last_;
  if (!enabled_ || !due) return;
  last_report_ = now;
  const double done = static_cast<double>(step - first_) / static_cast<double>(last_ - first_);
  const double eta = done > 0 ? now * (1 - done) / done : 0;
  char head[128], res[128] = "", tail[96];
  std::snprintf(head, sizeof head, "step %lld/%lld  t = %.6g  iterations %lld", step, last_, time,
                iterations);
  if (!measure_.name.empty())
    std::snprintf(res, sizeof res, "  %s %.3e (tol %.3g)", measure_.name.c_str(), residual,
                  measure_.tol);
  std::snprintf(tail, sizeof tail, "  %.3e cell updates/s  ETA %s",
                now > 0 ? cell_updates / now : 0.0, format_duration(eta).c_str());
  out_ << head << res << tail << std::endl;
}

void Progress::iterating(long long iterations, double residual) {
  const double now = clock_.seconds();
  if (!enabled_ || !(interval_ > 0) || now - std::max(last_report_, 0.0) < interval_) return;
  last_report_ = now;
  char res[128] = "";
  if (!measure_.name.empty())
    std::snprintf(res, sizeof res, "  %s %.3e (tol %.3g)", measure_.name.c_str(), residual,
                  measure_.tol);
  out_ << "step " << current_ << "/" << last_ << "  solving: iterations " << iterations << res
       << "  elapsed " << format_duration(now) << std::endl;
}

}  // namespace staghorn::io
