#include "solvers/pt_solver.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "core/thread_governor.hpp"

namespace staghorn::pt {
namespace {

std::string describe(const std::vector<Residual>& r) {
  std::ostringstream out;
  for (const auto& e : r) out << (out.tellp() > 0 ? ", " : "") << e.equation << " " << e.norm;
  return out.str();
}

std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// NaN or divergence: worth a retry with a smaller pseudo-step (unlike running out of iterations).
struct Diverged : NumericalError {
  using NumericalError::NumericalError;
};

std::string retried(const SolveReport& r) {
  return r.retries ? " (pseudo-step halved " + std::to_string(r.retries) + " times)" : "";
}

// The residuals with their start norms, as the reports give them.
std::vector<Residual> with_starts(std::vector<Residual> r, const std::vector<Residual>& start) {
  for (std::size_t e = 0; e < r.size(); ++e) r[e].start = start[e].norm;
  return r;
}

}  // namespace

double max_norm(const std::vector<Residual>& residuals) {
  double m = 0;
  for (const auto& e : residuals) m = std::max<double>(m, e.norm);
  return m;
}

void Options::add_to(io::Schema& s, long long stall) {
  using io::Type;
  // Float residuals stall near 1e-7 relative: a single-precision build starts from 1e-6.
  s.add("solver.tol", Type::number, sizeof(real) == sizeof(float) ? 1e-6 : 1e-8,
        "Convergence tolerance on the max-norm of each equation's residual (relative: at least "
        "1e-6 in a single-precision build)")
      .above(0);
  s.add("solver.tol_mode", Type::string, "relative",
        "relative: tol times the residual at the start of the time step; absolute: tol itself")
      .one_of({"relative", "absolute"});
  s.add("solver.ncheck", Type::integer, 100,
        "Iterations between residual checks (each check is a global reduction)")
      .at_least(1);
  s.add("solver.max_iter", Type::integer, 100000,
        "Iterations allowed per time step before the run stops as not converging")
      .at_least(1);
  s.add("solver.cfl", Type::number, 0.95, "Safety factor on the pseudo-time step's stability limit")
      .above(0)
      .at_most(1);
  s.add("solver.retries", Type::integer, 3,
        "Divergences survived per time step: the step restarts with the pseudo-step halved")
      .at_least(0)
      .at_most(20);
  s.add("solver.stall", Type::integer, stall,
        "Iterations within which the largest residual (over its target) must halve: a solve that "
        "does not has stalled and restarts with the pseudo-step halved, as after a divergence "
        "(0: never)")
      .at_least(0);
  s.add("solver.graphs", Type::boolean, false,
        "On a GPU, replay the iterations between residual checks as CUDA graphs, without the "
        "host's launches between their kernels, where no halo goes to another rank and the "
        "model's iteration allows it (docs/architecture.md); the same fields to the bit either "
        "way. Off by default: on an H100 it changed the time of an iteration on the benches' "
        "grids (256^3, 512^3) by 0.4% at most, their launches already following each other "
        "without a gap");
}

Options Options::from(const io::json& c) {
  Options o;
  o.tol = io::at_path(c, "solver.tol").get<real>();
  o.relative = io::at_path(c, "solver.tol_mode").get<std::string>() == "relative";
  // Float residuals stall a few ulps (relative to the terms they cancel) above zero: a relative
  // tolerance below that would run to max_iter at every step.
  constexpr double kFloatFloor = 1e-6;
  if (sizeof(real) == sizeof(float) && o.relative &&
      io::at_path(c, "solver.tol").get<double>() < kFloatFloor)
    throw io::ConfigError("solver.tol: " + io::at_path(c, "solver.tol").dump() +
                          " (relative) is below what float arithmetic resolves; this build is "
                          "single-precision (STAGHORN_SINGLE_PRECISION): use >= 1e-6");
  o.ncheck = io::at_path(c, "solver.ncheck").get<int>();
  o.max_iter = io::at_path(c, "solver.max_iter").get<long long>();
  o.cfl = io::at_path(c, "solver.cfl").get<real>();
  o.retries = io::at_path(c, "solver.retries").get<int>();
  o.stall = io::at_path(c, "solver.stall").get<long long>();
  o.graphs = io::at_path(c, "solver.graphs").get<bool>();
  return o;
}

SolveReport Solver::solve(Problem& problem, real dt) const {
  problem.begin_solve(dt);
  SolveReport report;
  for (;;) {
    try {
      return attempt(problem, report);
    } catch (const Diverged&) {
      if (report.retries >= opt_.retries) throw;
      ++report.retries;
      problem.retry(0.5);
    }
  }
}

void Solver::iterate(Problem& problem, int count) const {
  if (governor_) governor_->begin_batch();
  problem.iterate(count);
  if (governor_) governor_->end_batch();
}

SolveReport Solver::attempt(Problem& problem, SolveReport& report) const {
  const std::vector<Residual> start = problem.residuals();
  for (const Residual& e : start)
    if (!std::isfinite(e.scale) || !(e.scale > 0))
      throw NumericalError("pt solver: the scale of the " + e.equation + " residual is " +
                           number(e.scale) +
                           " (a parameter overflowed or underflowed); no residual can be measured");
  // The stall watch: the lowest largest-residual-over-target that was half the one before, and
  // when it was reached.
  double mark = INFINITY;
  long long mark_at = 0;
  for (long long it = 0;;) {
    const std::vector<Residual> r = it == 0 ? start : problem.residuals();
    bool done = true;
    double worst = 0;
    for (std::size_t e = 0; e < r.size(); ++e) {
      if (!std::isfinite(r[e].norm))
        throw Diverged("pt solver: residual of " + r[e].equation + " is " +
                       std::to_string(r[e].norm) + " after " + std::to_string(it) + " iterations" +
                       retried(report));
      const double target =
          (opt_.relative ? opt_.tol * start[e].norm : opt_.tol) * r[e].tolerance_factor;
      // Growth counts from the start or, for a residual that starts below its target (at the
      // rounding level, say: a divergence-free initial flow's continuity), from the target:
      // rising from 1e-15 to 1e-7 on the way to convergence is no divergence. A residual that
      // starts at exactly 0 (a symmetric problem's) is not checked, as before.
      const double base = std::max<double>(start[e].norm, target);
      // Growth in the start's scale: a scale taken from the solution (the rms_range measure's
      // 1 / range of P, whose range grows from 0) can change by orders of magnitude in the first
      // iterations while the residual itself falls.
      const double grown = r[e].norm / r[e].scale * start[e].scale;
      if (grown > opt_.divergence * base && start[e].norm > 0)
        throw Diverged("pt solver: diverging (" + describe(r) + " after " + std::to_string(it) +
                       " iterations" + retried(report) + "; lower solver.cfl or time.dt)");
      done = done && r[e].norm <= target;
      if (target > 0) worst = std::max(worst, r[e].norm / target);
    }
    if (worst <= 0.5 * mark) mark = worst, mark_at = it;
    if (!done && opt_.stall > 0 && it - mark_at >= opt_.stall)
      throw Diverged("pt solver: stalled (" + describe(r) + " after " + std::to_string(it) +
                     " iterations, not halved in the last " + std::to_string(it - mark_at) +
                     retried(report) + ")");
    if (done) {
      report.residuals = with_starts(r, start);
      return report;
    }
    if (it >= opt_.max_iter)
      throw NumericalError("pt solver: not converged after " + std::to_string(it) +
                           " iterations (residuals " + describe(r) + ")");
    if (watch_) watch_(report.iterations, with_starts(r, start));
    const int count = static_cast<int>(std::min<long long>(opt_.ncheck, opt_.max_iter - it));
    iterate(problem, count);
    report.iterations += count;
    it += count;
  }
}

}  // namespace staghorn::pt
