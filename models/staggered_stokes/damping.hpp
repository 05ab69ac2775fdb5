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
  // re0: the damping to start from (the uniform-viscosity optimum); n: the cells along the
  // longest axis, the iterations' length scale (a wave crosses the grid in ~n iterations).
  DampingControl(real re0, long long n);

  // A new solve (or a retry with another pseudo-step): the history and the search start over
  // from the current Re.
  void restart();
  // One residual check after `iteration` iterations of this solve: each equation's residual over
  // its target (> 1 until converged). May change Re() for the next iterations.
  void observe(long long iteration, const std::vector<double>& distances);
  real Re() const { return re_; }
  // A restart's: the Re the run had reached (a step carries it to the next).
  void set_Re(real re) { re_ = re; }
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
  // Extremum seeking on one measure of the convergence (larger is better): Re moves by a factor
  // while the measure grows; when it falls, back to the best Re and past it with half the step.
  struct Search {
    double step = 1;
    std::optional<double> best;
    real best_re = 0;
    double next(double measure, real re);  // the next Re
  };
  void track(Extremes& e, long long iteration, double level, double limiting);
  void adapt(double zeta);
  // Where the limiting residual falls without swings (an overdamped slowest mode, which gives no
  // peaks to measure zeta from): its decay rate over windows of a few n_x, searched on directly.
  void watch_monotone(long long iteration, double limiting);
  void move_to(double next);

  real re0_, re_;
  long long n_;
  std::vector<Extremes> equations_;
  long long last_iteration_ = -1;
  std::optional<double> zeta_;
  std::vector<double> recent_;       // damping ratios measured since the latest change of Re
  Search swings_;                    // on the median damping ratio of the swings
  Search monotone_;                  // on the decay rate where there are none
  long long last_turn_ = 0;          // the latest confirmed extreme of a relevant equation
  long long settle_until_ = 0;       // no monotone window before (after a change of Re)
  long long window_at_ = -1;         // the monotone window's start (-1: none yet)
  double window_level_ = 0;          // the limiting log residual there
  std::optional<double> last_rate_;  // the decay rate of the window before
};

}  // namespace staghorn::stokes
