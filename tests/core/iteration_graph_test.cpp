// IterationGraph: a batch of iterations replayed as CUDA graphs runs every iteration once, in
// order, with the host state's parity kept, on every backend here (the GPU when one is visible):
// batches of every length against the same iterations one by one, and a throw inside a capture
// leaves the lane able to launch again.
#include "core/iteration_graph.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "core/field.hpp"
#include "core/field_ops.hpp"
#include "core/for_each.hpp"
#include "test_support.hpp"

namespace staghorn {
namespace {

// next = 2 cur + 1 + i: the iterations' count and order both show in the result (an iteration
// run twice, skipped or out of order gives another value).
struct Step {
  View cur, next;
  real bump;
  SH_HD void operator()(int i, int j, int k) const {
    next(i, j, k) = 2 * cur(i, j, k) + 1 + bump * (i + 1);
  }
};

struct Pair {
  Field cur, next;
  Pair(const Exec& ex, const Layout& l)
      : cur("cur", Location::cell, l, ex.backend()), next("next", Location::cell, l, ex.backend()) {
    fill(ex, cur, 0);
    fill(ex, next, 0);
  }
  // One iteration: the update on `lane`, then the swap (period 2).
  void iterate(const Exec& ex, const Layout& l, int it) {
    for_each(ex, l.interior(), Lane::inner, Step{cur.view(), next.view(), real(it % 3)});
    cur.swap_data(next);
  }
};

// The bump depends on the index each iteration is called with: a replayed graph repeats the
// indices it captured, so the reference runs those (i mod unit) one by one.
TEST(IterationGraph, ReplaysEveryIterationOnceInOrder) {
  const Layout l{{37, 5, 3}, {1, 1, 1}};
  for (const Exec& ex : test::backends()) {
    for (const int count : {1, 2, 3, 4, 5, 17, 32, 33, 100}) {
      SCOPED_TRACE(ex.description() + ", " + std::to_string(count) + " iterations");
      IterationGraph graph;
      Pair p(ex, l);
      // The first batch runs one by one; the later ones are replayed where the backend can.
      for (int batch = 0; batch < 3; ++batch) {
        graph.run(ex, Lane::inner, count, 2, [&](int i) { p.iterate(ex, l, i); });
      }
      const int unit = IterationGraph::graphed_iterations(ex, count, 2);
      Pair q(ex, l);
      for (int batch = 0; batch < 3; ++batch) {
        const int replayed = batch > 0 && unit > 0 ? count / unit * unit : 0;
        for (int i = 0; i < count; ++i) q.iterate(ex, l, i < replayed ? i % unit : i);
      }
      EXPECT_EQ(p.cur.to_host(), q.cur.to_host());
    }
  }
}

TEST(IterationGraph, UnitsAreWholePeriodsReplayedAtLeastTwice) {
  for (const Exec& ex : test::backends()) {
    for (int count = 0; count < 60; ++count) {
      const int unit = IterationGraph::graphed_iterations(ex, count, 2);
      if (!ex.on_device()) {
        EXPECT_EQ(unit, 0);
        continue;
      }
      EXPECT_EQ(unit % 2, 0) << count;
      EXPECT_LE(unit, IterationGraph::kMaxIterations);
      if (unit > 0) EXPECT_GE(count / unit, 2) << count;
      if (count >= 4) EXPECT_GT(unit, 0) << count;
    }
  }
}

TEST(IterationGraph, AThrowInsideACaptureLeavesTheLaneUsable) {
  const Layout l{{8, 4, 2}, {1, 1, 1}};
  for (const Exec& ex : test::backends()) {
    IterationGraph graph;
    Pair p(ex, l);
    graph.run(ex, Lane::inner, 8, 2, [&](int i) { p.iterate(ex, l, i); });  // the one-by-one batch
    EXPECT_THROW(graph.run(ex, Lane::inner, 8, 2,
                           [&](int i) {
                             p.iterate(ex, l, i);
                             if (i == 1) throw std::runtime_error("a failed iteration");
                           }),
                 std::runtime_error);
    // The lane launches again, and the graph runs the next batch.
    fill(ex, p.cur, 1);
    fill(ex, p.next, 1);
    ex.synchronize();
    graph.run(ex, Lane::inner, 4, 2, [&](int i) { p.iterate(ex, l, i); });
    Pair q(ex, l);
    fill(ex, q.cur, 1);
    fill(ex, q.next, 1);
    const int unit = IterationGraph::graphed_iterations(ex, 4, 2);
    for (int i = 0; i < 4; ++i) q.iterate(ex, l, unit > 0 && i < 4 / unit * unit ? i % unit : i);
    EXPECT_EQ(p.cur.to_host(), q.cur.to_host()) << ex.description();
  }
}

}  // namespace
}  // namespace staghorn
