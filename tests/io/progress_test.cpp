// The progress line: one per interval after a step, and within a long step the solver's
// iterations and residual, at most once per interval and never when every step reports.
#include "io/progress.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <thread>

namespace staghorn::io {
namespace {

TEST(Progress, ReportsTheSolveWithinALongStep) {
  std::ostringstream out;
  Progress p(out, true, 0.01, 0, 3, {"absolute residual", 1e-5});
  p.step(1, 1.0, 100, 1e-6, 1e3);  // the first step always reports
  p.iterating(500, 3.5e-4);        // too soon after it
  EXPECT_EQ(out.str().find("solving"), std::string::npos);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  p.iterating(900, 2.5e-4);
  const std::string text = out.str();
  EXPECT_NE(text.find("step 2/3  solving: iterations 900  absolute residual 2.500e-04 (tol 1e-05)"),
            std::string::npos)
      << text;
}

TEST(Progress, EveryStepReportingLeavesTheSolveAlone) {
  std::ostringstream out;
  Progress p(out, true, 0, 0, 3, {"absolute residual", 1e-5});
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  p.iterating(900, 2.5e-4);
  EXPECT_EQ(out.str(), "");
}

TEST(Progress, OtherRanksPrintNothing) {
  std::ostringstream out;
  Progress p(out, false, 0.001, 0, 3, {"absolute residual", 1e-5});
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  p.iterating(900, 2.5e-4);
  p.step(1, 1.0, 900, 1e-6, 1e3);
  EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace staghorn::io
