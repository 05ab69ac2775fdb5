#include "core/side_stream.hpp"

#include <stdexcept>

#ifdef STAGHORN_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace staghorn {

#ifdef STAGHORN_HAVE_CUDA
SideStream::~SideStream() {
  if (!stream_) return;
  // No error may leave a destructor; work still queued completes before the stream goes.
  cudaStreamSynchronize(stream_);
  cudaStreamDestroy(stream_);
  cudaEventDestroy(forked_);
  cudaEventDestroy(joined_);
}

CUstream_st* SideStream::after_boundary() {
  if (!stream_) {
    int least = 0, greatest = 0;
    check_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "stream priorities");
    check_cuda(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest),
               "cudaStreamCreate (side stream)");
    check_cuda(cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming), "cudaEventCreate");
    check_cuda(cudaEventCreateWithFlags(&joined_, cudaEventDisableTiming), "cudaEventCreate");
  }
  check_cuda(cudaEventRecord(forked_, ex_.stream(Lane::boundary)), "cudaEventRecord (side)");
  check_cuda(cudaStreamWaitEvent(stream_, forked_, 0), "cudaStreamWaitEvent (side)");
  return stream_;
}

void SideStream::join_boundary() {
  if (!stream_) return;
  check_cuda(cudaEventRecord(joined_, stream_), "cudaEventRecord (side)");
  check_cuda(cudaStreamWaitEvent(ex_.stream(Lane::boundary), joined_, 0),
             "cudaStreamWaitEvent (side)");
}

void SideStream::synchronize() noexcept {
  if (stream_) cudaStreamSynchronize(stream_);
}
#else
SideStream::~SideStream() = default;
CUstream_st* SideStream::after_boundary() {
  throw std::logic_error("SideStream: this build has no CUDA backend");
}
void SideStream::join_boundary() {}
void SideStream::synchronize() noexcept {}
#endif

}  // namespace staghorn
