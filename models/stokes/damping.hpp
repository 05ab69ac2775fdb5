#pragma once
// The PT iterations' damping (the numerical Reynolds number Re) chosen during the solve from the
// residual history (docs/models/stokes.md, "Damping that tunes itself"). Host logic only: it
// sees the residual norms of each check and changes no kernel, so an iteration costs what it did.

#include <optional>
#include <utility>
#include <vector>

#include "core/platform.hpp"

namespace staghorn::stokes {

class DampingControl {
 public:
  // re0: the damping to start from (the uniform-viscosity optimum).
  explicit DampingControl(real re0);

  // A new solve (or a retry with another pseudo-step): the history and the search start over
  // from the current Re.
  void restart();
  // One residual check after `iteration` iterations of this solve: each equation's residual over
  // its target (> 1 until converged). May change Re() for the next iterations.
  void observe(long long iteration, const std::vector<double>& distances);
  real Re() const { return re_; }
  // The damping ratio of the slowest mode measured last, if any.
  std::optional<double> last_damping_ratio() const { return zeta_; }

 private:
  // One equation's log residual: its peaks and troughs, found with a hysteresis (an extreme
  // counts once the residual has moved away from it by kProminence).
  struct Extremes {
    bool falling = true;       // looking for a trough (else for a peak)
    double extreme = 0;        // the running max (rising) or min (falling) since the last turn
    long long at = 0;          // its iteration
    bool have_trough = false;  // a trough came before the peak being looked for
    std::optional<std::pair<long long, double>> peak;  // the latest confirmed peak
  };
  void track(Extremes& e, long long iteration, double level, double limiting);
  void adapt(double zeta);

  real re0_, re_;
  std::vector<Extremes> equations_;
  long long last_iteration_ = -1;
  std::optional<double> zeta_;
  std::vector<double> recent_;       // damping ratios measured since the latest change of Re
  std::optional<double> best_zeta_;  // the largest median damping ratio of this solve
  real best_re_ = 0;                 // the Re that gave it
  double step_ = 1;                  // the next factor of Re
};

}  // namespace staghorn::stokes
