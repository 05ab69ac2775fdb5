#pragma once
#include "core/backend.hpp"

struct CUevent_st;  // cudaEvent_t without the CUDA headers

namespace staghorn {

// A stream beside an Exec's boundary lane, for the transfers of a pipelined exchange: a wave's
// copies or NCCL kernels queued on the boundary lane itself would hold the shell's next slab until
// they were done. Created on first use (high priority, like the boundary lane); nothing on the CPU.
class SideStream {
 public:
  explicit SideStream(const Exec& ex) : ex_(ex) {}
  ~SideStream();
  SideStream(const SideStream&) = delete;
  SideStream& operator=(const SideStream&) = delete;

  // The stream, ordered after everything queued so far on the boundary lane.
  CUstream_st* after_boundary();
  // Where an exchange of `waves` waves queues a wave's transfer: the boundary lane itself when it
  // sends all at once, else this stream (the shell's next slab is queued on the lane meanwhile).
  CUstream_st* for_waves(int waves) {
    return waves > 1 ? after_boundary() : ex_.stream(Lane::boundary);
  }
  // Orders the boundary lane after everything queued so far on the side stream (a no-op before
  // its first use).
  void join_boundary();
  // Waits for the work queued on it (errors ignored: for destructors).
  void synchronize() noexcept;

 private:
  Exec ex_;
  CUstream_st* stream_ = nullptr;
  CUevent_st* forked_ = nullptr;  // boundary -> side
  CUevent_st* joined_ = nullptr;  // side -> boundary
};

}  // namespace staghorn
