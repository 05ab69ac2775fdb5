#include "core/comm.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <thread>

#include "core/error.hpp"

namespace staghorn {
namespace {

// The ranks that the still pending requests wait on, as "rank 1" or "ranks 1, 3".
std::string pending_ranks(std::vector<MPI_Request>& requests, const std::vector<int>& peers) {
  std::set<int> ranks;
  for (std::size_t i = 0; i < peers.size() && i < requests.size(); ++i) {
    int done = 0;
    MPI_Request_get_status(requests[i], &done, MPI_STATUS_IGNORE);
    if (!done) ranks.insert(peers[i]);
  }
  std::string list;
  for (int r : ranks) list += (list.empty() ? "" : ", ") + std::to_string(r);
  return ranks.size() == 1 ? "rank " + list : "ranks " + list;
}

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  int provided = 0;
  check_mpi(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void check_mpi(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  throw Error(std::string(what) + " failed: " + std::string(text, len));
}

Comm::Comm(MPI_Comm comm, double timeout_s) : comm_(comm), timeout_s_(timeout_s) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

namespace {
std::atomic<double> g_last_progress{0};
}  // namespace

double steady_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double last_progress_s() { return g_last_progress.load(std::memory_order_relaxed); }

void note_progress() { g_last_progress.store(steady_now_s(), std::memory_order_relaxed); }

namespace {
// Every completed wait is progress (comm.hpp).
struct ProgressMark {
  ~ProgressMark() { note_progress(); }
};
}  // namespace

void Comm::wait_all(std::vector<MPI_Request>& requests, const char* what,
                    const std::vector<int>& peers) const {
  const int n = static_cast<int>(requests.size());
  const ProgressMark mark;  // also when the wait throws: the watchdog then has nothing to add
  if (timeout_s_ <= 0) return check_mpi(MPI_Waitall(n, requests.data(), MPI_STATUSES_IGNORE), what);
  // MPI_Testall progresses MPI like MPI_Waitall does.
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s_);
  for (;;) {
    int done = 0;
    check_mpi(MPI_Testall(n, requests.data(), &done, MPI_STATUSES_IGNORE), what);
    if (done) return;
    if (Clock::now() < deadline) {
      std::this_thread::yield();  // oversubscribed ranks (tests) share cores with their peers
      continue;
    }
    const std::string who = peers.empty() ? "not every rank arrived"
                                          : "still waiting on " + pending_ranks(requests, peers);
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", timeout_s_);
    throw PeerTimeout(std::string(what) + ": " + who + " after " + seconds +
                      " s (exchange.timeout_s): a rank stalled or was lost");
  }
}

void Comm::wait(MPI_Request request, const char* what) const {
  std::vector<MPI_Request> one{request};
  wait_all(one, what);
}

void Comm::all_reduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op,
                      const char* what) const {
  MPI_Request r;
  check_mpi(MPI_Iallreduce(in, out, count, type, op, comm_, &r), what);
  wait(r, what);
}

double Comm::max(double local) const {
  // MPI_MAX may drop NaN; a NaN anywhere must reach every rank, so it travels as a flag.
  const bool nan = std::isnan(local);
  double in[2] = {nan ? 1.0 : 0.0, nan ? -HUGE_VAL : local}, out[2];
  all_reduce(in, out, 2, MPI_DOUBLE, MPI_MAX, "MPI_Iallreduce (max)");
  return out[0] > 0 ? std::nan("") : out[1];
}

std::vector<double> Comm::max(const std::vector<double>& local) const {
  // The NaN flags first, then the values, as max(double) sends them.
  const std::size_t n = local.size();
  std::vector<double> in(2 * n), out(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const bool nan = std::isnan(local[i]);
    in[i] = nan ? 1.0 : 0.0;
    in[n + i] = nan ? -HUGE_VAL : local[i];
  }
  all_reduce(in.data(), out.data(), static_cast<int>(2 * n), MPI_DOUBLE, MPI_MAX,
             "MPI_Iallreduce (max of a vector)");
  std::vector<double> global(n);
  for (std::size_t i = 0; i < n; ++i) global[i] = out[i] > 0 ? std::nan("") : out[n + i];
  return global;
}

std::vector<double> Comm::sum(const std::vector<double>& local) const {
  std::vector<double> global(local.size());
  all_reduce(local.data(), global.data(), static_cast<int>(local.size()), MPI_DOUBLE, MPI_SUM,
             "MPI_Iallreduce (sum of a vector)");
  return global;
}

double Comm::sum(double local) const {
  double global = 0;
  all_reduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, "MPI_Iallreduce (sum)");
  return global;
}

long long Comm::sum(long long local) const {
  long long global = 0;
  all_reduce(&local, &global, 1, MPI_LONG_LONG, MPI_SUM, "MPI_Iallreduce (sum)");
  return global;
}

int Comm::first_failure(bool failed) const {
  int mine = failed ? rank_ : size_, first = size_;
  all_reduce(&mine, &first, 1, MPI_INT, MPI_MIN, "MPI_Iallreduce (min)");
  return first < size_ ? first : -1;
}

int Comm::node_rank() const { return NodeComm(*this).rank(); }

NodeComm::NodeComm(const Comm& comm) {
  check_mpi(
      MPI_Comm_split_type(comm.get(), MPI_COMM_TYPE_SHARED, comm.rank(), MPI_INFO_NULL, &comm_),
      "MPI_Comm_split_type");
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

NodeComm::~NodeComm() { MPI_Comm_free(&comm_); }

std::vector<std::string> NodeComm::all(const std::string& mine) const {
  constexpr int kLen = 64;
  char own[kLen] = {};
  mine.copy(own, kLen - 1);
  std::vector<char> every(static_cast<std::size_t>(kLen) * size_);
  check_mpi(MPI_Allgather(own, kLen, MPI_CHAR, every.data(), kLen, MPI_CHAR, comm_),
            "MPI_Allgather (node)");
  std::vector<std::string> out;
  for (int r = 0; r < size_; ++r) out.emplace_back(&every[static_cast<std::size_t>(r) * kLen]);
  return out;
}

void Comm::barrier() const {
  MPI_Request r;
  check_mpi(MPI_Ibarrier(comm_, &r), "MPI_Ibarrier");
  wait(r, "MPI_Ibarrier");
}

}  // namespace staghorn
