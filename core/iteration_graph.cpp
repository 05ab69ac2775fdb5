#include "core/iteration_graph.hpp"

#include <algorithm>

#include "core/network.hpp"

#ifdef STAGHORN_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace staghorn {

int IterationGraph::graphed_iterations(const Exec& ex, int count, int period) {
  if (!ex.on_device() || period < 1) return 0;
  return std::min(kMaxIterations, count / 2) / period * period;
}

namespace {
PhaseTimer* timer_of(const Exec& ex) { return ex.network() ? &ex.network()->timer() : nullptr; }
}  // namespace

#ifdef STAGHORN_HAVE_CUDA
IterationGraph::~IterationGraph() {
  if (exec_) cudaGraphExecDestroy(exec_);
}

IterationGraph::Capture::Capture(const Exec& ex, Lane lane) : ex_(ex), lane_(lane) {
  if (PhaseTimer* t = timer_of(ex)) timed_ = t->enabled(), t->enable(false);
  // Thread-local: a call that cannot be captured (a wait for the GPU, an allocation) fails where
  // it is made rather than running outside the graph.
  check_cuda(cudaStreamBeginCapture(ex.stream(lane), cudaStreamCaptureModeThreadLocal),
             "cudaStreamBeginCapture (iterations)");
  open_ = true;
}

CUgraph_st* IterationGraph::Capture::end() {
  open_ = false;
  if (PhaseTimer* t = timer_of(ex_)) t->enable(timed_);
  cudaGraph_t graph = nullptr;
  check_cuda(cudaStreamEndCapture(ex_.stream(lane_), &graph), "cudaStreamEndCapture (iterations)");
  return graph;
}

IterationGraph::Capture::~Capture() {
  if (!open_) return;
  if (PhaseTimer* t = timer_of(ex_)) t->enable(timed_);
  cudaGraph_t graph = nullptr;
  if (cudaStreamEndCapture(ex_.stream(lane_), &graph) == cudaSuccess && graph)
    cudaGraphDestroy(graph);
  cudaGetLastError();  // the error that ended the capture is already on its way
}

void IterationGraph::replay(const Exec& ex, Lane lane, CUgraph_st* graph, int times) {
  // The same launches as the last batch's with new arguments update in place; another shape (a
  // first graph, another unit) is instantiated anew.
  cudaGraphExecUpdateResultInfo info{};
  if (!exec_ || cudaGraphExecUpdate(exec_, graph, &info) != cudaSuccess) {
    cudaGetLastError();  // a refused update leaves an error to clear, nothing broken
    if (exec_) cudaGraphExecDestroy(exec_), exec_ = nullptr;
    const cudaError_t made = cudaGraphInstantiate(&exec_, graph, 0);
    if (made != cudaSuccess) exec_ = nullptr;
    cudaGraphDestroy(graph);
    check_cuda(made, "cudaGraphInstantiate (iterations)");
  } else {
    cudaGraphDestroy(graph);
  }
  PhaseTimer* t = timer_of(ex);
  const long long span = t ? t->open(Phase::compute, lane) : -1;
  for (int r = 0; r < times; ++r)
    check_cuda(cudaGraphLaunch(exec_, ex.stream(lane)), "cudaGraphLaunch");
  if (span >= 0) t->close(span);
}
#else
IterationGraph::~IterationGraph() = default;
IterationGraph::Capture::Capture(const Exec& ex, Lane lane) : ex_(ex), lane_(lane) {}
IterationGraph::Capture::~Capture() = default;
CUgraph_st* IterationGraph::Capture::end() { return nullptr; }
void IterationGraph::replay(const Exec&, Lane, CUgraph_st*, int) {}
#endif

}  // namespace staghorn
