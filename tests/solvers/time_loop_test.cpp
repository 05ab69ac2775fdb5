// TimeLoop: the time it reports for a step counts the step's work, also when advance() returns
// before that work is done (a device's queued kernels): the clock is read after Stepper::finish.
#include "solvers/time_loop.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

namespace staghorn {
namespace {

// A step whose work runs on in the background after advance() returns, as kernels queued on a
// GPU stream do; finish() waits for it, as a stream synchronisation does.
class QueuedStepper : public Stepper {
 public:
  explicit QueuedStepper(std::chrono::milliseconds work) : work_(work) {}
  StepReport advance(real) override {
    queued_ = std::async(std::launch::async, [w = work_] { std::this_thread::sleep_for(w); });
    return {1, {}};
  }
  void finish() override {
    if (queued_.valid()) queued_.get();
  }

 private:
  std::chrono::milliseconds work_;
  std::future<void> queued_;
};

TEST(TimeLoop, StepTimeCountsWorkStillQueuedWhenAdvanceReturns) {
  const auto work = std::chrono::milliseconds(40);
  QueuedStepper stepper(work);
  TimeLoop::Hooks hooks;
  int steps = 0;
  hooks.after_step = [&](const LoopState&, const StepReport&, double seconds) {
    ++steps;
    EXPECT_GE(seconds, 0.040) << "step " << steps << " timed before its work was done";
  };
  const LoopState end = TimeLoop(3, 0.1, 0).run(stepper, {}, hooks);
  EXPECT_EQ(end.step, 3);
  EXPECT_EQ(steps, 3);
}

}  // namespace
}  // namespace staghorn
