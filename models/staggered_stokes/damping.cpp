#include "models/staggered_stokes/damping.hpp"

#include <algorithm>
#include <cmath>

namespace staghorn::stokes {
namespace {

// An extreme of a log residual counts once the residual has left it by this much (a factor of
// 1.28): the higher modes' ripples stay below it, the slowest mode's swings exceed it.
constexpr double kProminence = 0.25;
// A peak measures the damping only if its equation is then within this factor (log) of the
// largest distance to convergence: the equation that decides the iteration count.
constexpr double kRelevant = 2.3;
// The first step of Re (down: buoyancy-driven flows converge faster with less damping than
// the uniform optimum, shear around inclusions at about it), the least step still taken, and the
// range of Re in multiples of the start.
constexpr double kFirstStep = 0.8, kDeadBand = 1.05;
constexpr double kLeast = 0.25, kMost = 4;
// Re follows the median of this many measurements since its last change (transients and the
// interplay of the equations' peaks make single ones scatter).
constexpr std::size_t kVotes = 3;
// Monotone decay, in n_x (iterations over the cells along the longest axis): no turn of a
// relevant equation for kQuiet; after a change of Re, kSettle for the faster modes it excites;
// windows of kWindow, whose decay rate counts once two in a row agree within kSteady (the
// decelerating fall of the first phase of a solve does not; the slowest mode's tail does). The
// search starts at the first steady window slower than kSlow e-folds per n_x (a uniform viscosity
// converges at about one per n_x: only a slow tail is worth searching, and the fast first phase,
// steady too at times, must not become the best rate measured).
constexpr double kQuiet = 4, kSettle = 1, kWindow = 1, kSteady = 0.25, kSlow = 1.0 / 3;

}  // namespace

DampingControl::DampingControl(real re0, long long n)
    : re0_(re0), re_(re0), n_(std::max<long long>(n, 1)) {
  restart();
}

void DampingControl::restart() {
  equations_.clear();
  last_iteration_ = -1;
  zeta_.reset();
  recent_.clear();
  swings_ = Search{kFirstStep, std::nullopt, 0};
  monotone_ = Search{kFirstStep, std::nullopt, 0};
  last_turn_ = 0;
  settle_until_ = 0;
  window_at_ = -1;
  last_rate_.reset();
}

void DampingControl::observe(long long iteration, const std::vector<double>& distances) {
  if (iteration == last_iteration_) return;  // the same check seen twice (diagnostics)
  last_iteration_ = iteration;
  std::vector<double> level(distances.size());
  double limiting = -HUGE_VAL;
  for (std::size_t e = 0; e < distances.size(); ++e) {
    level[e] = distances[e] > 0 && std::isfinite(distances[e]) ? std::log(distances[e]) : -HUGE_VAL;
    limiting = std::max(limiting, level[e]);
  }
  if (!std::isfinite(limiting)) return;
  const bool first = equations_.empty();
  if (first) equations_.resize(distances.size());
  for (std::size_t e = 0; e < distances.size(); ++e) {
    Extremes& x = equations_[e];
    if (!std::isfinite(level[e])) continue;
    if (first) {
      x.extreme = level[e], x.at = iteration;
      continue;
    }
    track(x, iteration, level[e], limiting);
  }
  if (!first) watch_monotone(iteration, limiting);
}

void DampingControl::track(Extremes& x, long long iteration, double level, double limiting) {
  if (x.falling) {
    if (level < x.extreme) {
      x.extreme = level, x.at = iteration;
    } else if (level > x.extreme + kProminence) {  // a trough at x.at
      if (level >= limiting - kRelevant) last_turn_ = iteration;
      x.have_trough = true;
      x.falling = false;
      x.extreme = level, x.at = iteration;
    }
    return;
  }
  if (level > x.extreme) {
    x.extreme = level, x.at = iteration;
    return;
  }
  if (level >= x.extreme - kProminence) return;
  // A peak at x.at: with the one before, half a period of the slowest mode and its decay.
  if (x.extreme >= limiting - kRelevant) last_turn_ = iteration;
  if (x.peak && x.have_trough && x.extreme >= limiting - kRelevant) {
    const double period = static_cast<double>(x.at - x.peak->first);
    const double decay = x.peak->second - x.extreme;
    if (period > 0 && decay > 0) {
      const double sigma = decay / period, omega = M_PI / period;
      zeta_ = sigma / std::hypot(sigma, omega);
      recent_.push_back(*zeta_);
      if (recent_.size() == kVotes) {
        std::vector<double> sorted = recent_;
        std::nth_element(sorted.begin(), sorted.begin() + kVotes / 2, sorted.end());
        recent_.erase(recent_.begin());
        adapt(sorted[kVotes / 2]);
      }
    }
  }
  x.peak = {x.at, x.extreme};
  x.falling = true;
  x.extreme = level, x.at = iteration;
}

// Extremum seeking on the measured damping ratio: the slowest mode's decay per half-period
// (zeta = sigma / sqrt(sigma^2 + w^2), sigma from the peaks' decay, w from their spacing) is the
// iteration's convergence per oscillation, and the best Re makes it largest.
void DampingControl::adapt(double zeta) { move_to(swings_.next(zeta, re_)); }

// An overdamped slowest mode falls without swings, at a rate that Re sets (the shear modes'
// damping grows with Re: too much of it slows them down), and there is no zeta to measure; its
// decay rate per iteration, once steady, is the measure to search on instead.
void DampingControl::watch_monotone(long long iteration, double limiting) {
  if (iteration - last_turn_ < kQuiet * n_ || iteration < settle_until_) {
    window_at_ = -1, last_rate_.reset();
    return;
  }
  if (window_at_ < 0) {
    window_at_ = iteration, window_level_ = limiting;
    return;
  }
  if (iteration - window_at_ < kWindow * n_) return;
  const double rate = (window_level_ - limiting) / static_cast<double>(iteration - window_at_);
  window_at_ = iteration, window_level_ = limiting;
  const bool steady = last_rate_ && rate > 0 && std::fabs(rate - *last_rate_) <= kSteady * rate;
  last_rate_ = rate;
  if (steady && (monotone_.best || rate * n_ < kSlow)) move_to(monotone_.next(rate, re_));
}

// Re moves by a factor in one direction while the measure grows; when it falls, the search goes
// back to the best Re and on past it with half the step (in log Re), until the step is within the
// dead band: then Re stays at the best one measured.
double DampingControl::Search::next(double measure, real re) {
  double to = re;
  if (!best || measure >= *best) {
    best = measure, best_re = re;
    to = re * step;
  } else {
    step = 1 / std::sqrt(step);
    to = best_re * step;
  }
  if (step < kDeadBand && step > 1 / kDeadBand) to = best_re;
  return to;
}

void DampingControl::move_to(double next) {
  next = std::clamp<double>(next, kLeast * re0_, kMost * re0_);
  if (next == re_) return;
  re_ = static_cast<real>(next);
  recent_.clear();
  settle_until_ = last_iteration_ + static_cast<long long>(kSettle * n_);
  window_at_ = -1, last_rate_.reset();
}

}  // namespace staghorn::stokes
