#pragma once
#include <cstddef>
#include <utility>

#include "core/backend.hpp"

namespace staghorn {

// Where a buffer lives: plain host memory (the cpu backend), page-locked host memory (staging for
// transfers) or device memory.
enum class Space { host, pinned, device };

inline Space space_of(Backend b) { return b == Backend::cuda ? Space::device : Space::host; }

void* allocate_bytes(Space space, std::size_t bytes);
void release_bytes(Space space, void* p) noexcept;
// Copies between any two spaces; on a stream when one is given (asynchronous for pinned/device).
void copy_bytes(void* dst, const void* src, std::size_t bytes, CUstream_st* stream = nullptr);
// Sets bytes to zero and returns when done (host memory by all OpenMP threads, so that pages are
// first touched where the kernels' static schedule will use them).
void zero_bytes(Space space, void* p, std::size_t bytes);
// Sets bytes to zero in stream order: queued on `stream` for device memory (returns at once),
// at once on the calling thread for host memory (small buffers: one thread).
void zero_bytes_async(Space space, void* p, std::size_t bytes, CUstream_st* stream);

// Bytes a new allocation in `space` can get now: the device's free memory (cudaMemGetInfo on the
// current device) or the host's available memory (MemAvailable of /proc/meminfo; physical pages
// where that is unknown). Shared by every process on the node or device.
double available_bytes(Space space);

// An owning, move-only array of T in one memory space.
template <class T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(Space space, std::size_t count)
      : space_(space),
        count_(count),
        data_(static_cast<T*>(allocate_bytes(space, count * sizeof(T)))) {}
  ~Buffer() { release_bytes(space_, data_); }
  Buffer(Buffer&& o) noexcept { swap(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    Buffer(std::move(o)).swap(*this);
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void swap(Buffer& o) noexcept {
    std::swap(space_, o.space_);
    std::swap(count_, o.count_);
    std::swap(data_, o.data_);
  }
  T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  Space space() const { return space_; }

 private:
  Space space_ = Space::host;
  std::size_t count_ = 0;
  T* data_ = nullptr;
};

}  // namespace staghorn
