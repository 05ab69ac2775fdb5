#pragma once
#include "core/backend.hpp"

struct CUgraph_st;      // cudaGraph_t without the CUDA headers
struct CUgraphExec_st;  // cudaGraphExec_t

namespace staghorn {

// Replays a batch of PT iterations as a CUDA graph: the host queues a few iterations once, into a
// graph, and the GPU runs that graph again and again without the host's launches between its
// kernels. What an iteration computes is unchanged (the same kernels with the same arguments in
// the same order): the fields are the same to the bit.
//
// An iteration may only queue work on the GPU (kernels, asynchronous copies, orderings between
// the two lanes that end on `lane`) and change host state that is back where it was after `period`
// iterations (an iterate swapped with its next buffer: period 2). It may not wait for the GPU,
// talk to MPI or read a value back; the caller says when that holds (e.g. nothing sent to another
// rank). Whatever an iteration allocates on first use is allocated in the first batch, which runs
// one by one, as do batches on the CPU and those too short to replay.
class IterationGraph {
 public:
  IterationGraph() = default;
  ~IterationGraph();
  IterationGraph(const IterationGraph&) = delete;
  IterationGraph& operator=(const IterationGraph&) = delete;

  // Runs `count` iterations on `lane` of `ex`; iteration(i) queues one. A replay repeats the
  // captured ones, i = 0 .. unit - 1, so i may only select what each unit repeats (the parity,
  // say). The replays count as one compute phase of the run's phase timer (no events inside a
  // graph).
  template <class Iteration>
  void run(const Exec& ex, Lane lane, int count, int period, Iteration&& iteration) {
    const int unit = batches_++ > 0 ? graphed_iterations(ex, count, period) : 0;
    int done = 0;
    if (unit > 0) {
      Capture capture(ex, lane);
      for (int i = 0; i < unit; ++i) iteration(i);
      replay(ex, lane, capture.end(), count / unit);
      done = count / unit * unit;
    }
    for (int i = done; i < count; ++i) iteration(i);
  }

  // Iterations per graph for a batch of `count` (0: one by one): a multiple of `period`, at most
  // kMaxIterations, replayed at least twice.
  static int graphed_iterations(const Exec& ex, int count, int period);
  static constexpr int kMaxIterations = 16;

 private:
  // A capture of `lane` with the phase timer off; one left open by a throw is ended and dropped.
  class Capture {
   public:
    Capture(const Exec& ex, Lane lane);
    ~Capture();
    Capture(const Capture&) = delete;
    Capture& operator=(const Capture&) = delete;
    CUgraph_st* end();  // the captured graph (the caller's), the timer as it was

   private:
    const Exec& ex_;
    Lane lane_;
    bool open_ = false;
    bool timed_ = false;
  };
  // Brings the executable graph up to date with `graph` (the kernels' arguments change between
  // batches: the pseudo-steps, the buffers' parity), drops `graph` and launches it `times` times.
  void replay(const Exec& ex, Lane lane, CUgraph_st* graph, int times);

  CUgraphExec_st* exec_ = nullptr;
  long long batches_ = 0;
};

}  // namespace staghorn
