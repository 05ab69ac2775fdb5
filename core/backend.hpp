#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <utility>

#include "core/platform.hpp"

struct CUstream_st;  // cudaStream_t without the CUDA headers, so CPU-only code compiles anywhere

namespace staghorn {

class Network;
class ThreadGovernor;

enum class Backend { cpu, cuda };

std::string to_string(Backend b);
// "cpu", "cuda" or "auto" (the GPU when this build has CUDA and a device is present).
Backend parse_backend(const std::string& name);
bool cuda_compiled();
int cuda_device_count();
// The PCI bus id of a visible device ("0000:00:06.0"): the same GPU has the same id in every
// process, whatever CUDA_VISIBLE_DEVICES numbers it.
std::string gpu_bus_id(int device);
// Whether this process sees the GPU with that bus id.
bool gpu_visible(const std::string& bus_id);

// Where work of one kind is queued. The boundary lane has the highest stream priority so that the
// shell whose halo must travel is computed first; the inner lane fills the device meanwhile.
enum class Lane { inner, boundary };

// An execution context: the backend, and on CUDA the device and its two prioritised streams.
class Exec {
 public:
  static Exec cpu();
  // Selects device `device` (e.g. the node-local rank modulo the device count).
  static Exec cuda(int device);

  Backend backend() const { return backend_; }
  bool on_device() const { return backend_ == Backend::cuda; }
  int device() const { return device_; }
  CUstream_st* stream(Lane lane) const;
  // Waits for all work queued on both lanes.
  void synchronize() const;
  void synchronize(Lane lane) const;
  // Orders `later` after everything queued so far on `earlier`.
  void order(Lane earlier, Lane later) const;
  std::string description() const;
  // Device scratch space of at least `count` reals, reused between calls (partial reductions).
  // Valid until the next call; work using it must be complete before it is asked for again.
  real* scratch(std::size_t count) const;

  // The network this run's halo exchanges use (null: MPI on host memory, untimed). Set once,
  // before the model is built; copies of this Exec made later share it.
  Network* network() const { return network_.get(); }
  void use_network(std::shared_ptr<Network> network) { network_ = std::move(network); }
  // Who picks the CPU threads of the iterations by measuring them (core/thread_governor.hpp;
  // null: the planned threads throughout, e.g. set by OMP_NUM_THREADS). Set once, like the
  // network; copies share it.
  ThreadGovernor* thread_governor() const { return governor_.get(); }
  void use_thread_governor(std::shared_ptr<ThreadGovernor> g) { governor_ = std::move(g); }

 private:
  struct Streams;
  Backend backend_ = Backend::cpu;
  int device_ = -1;
  std::shared_ptr<Streams> streams_;
  std::shared_ptr<Network> network_;  // holds Exec copies made before it was set: no cycle
  std::shared_ptr<ThreadGovernor> governor_;
};

// Throws staghorn::Error with `what` and CUDA's message for a failed runtime call (code != 0).
void check_cuda(int code, const char* what);
// Checks the last kernel launch.
void check_launch(const char* what);

}  // namespace staghorn
