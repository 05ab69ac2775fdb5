#include "solvers/time_loop.hpp"

#include "core/decimal.hpp"
#include "core/timer.hpp"

namespace staghorn {

LoopState TimeLoop::run(Stepper& stepper, LoopState state, const Hooks& hooks) const {
  // Times count from where this run starts (a restart's stored time), in decimal: a running sum
  // of dt would drift (0.30000000000000004) and a restart would not continue it to the bit.
  const LoopState origin = state;
  while (state.step < last_) {
    Timer timer;
    const StepReport report = stepper.advance(static_cast<real>(dt_));
    stepper.finish();
    const double seconds = timer.seconds();
    ++state.step;
    state.time = decimal_time(origin.time, state.step - origin.step, dt_);
    if (hooks.after_step) hooks.after_step(state, report, seconds);
    const bool due = (every_ > 0 && state.step % every_ == 0) || state.step == last_;
    if (due && hooks.output) hooks.output(state);
  }
  return state;
}

}  // namespace staghorn
