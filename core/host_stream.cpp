#include "core/host_stream.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/memory.hpp"
#include "core/timer.hpp"

namespace staghorn {
namespace {

constexpr int kRepeats = 10;  // as STREAM's NTIMES; the first (warm-up) is not counted
constexpr double kTriadScalar = 3.0;

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// "32768K", "1M" -> bytes (sysfs cache sizes).
std::size_t parse_size(const std::string& s) {
  if (s.empty()) return 0;
  std::size_t pos = 0;
  const unsigned long long v = std::stoull(s, &pos);
  const char unit = pos < s.size() ? s[pos] : ' ';
  return v * (unit == 'K' ? 1024ull : unit == 'M' ? 1024ull * 1024 : unit == 'G' ? 1ull << 30 : 1);
}

// The highest-level data or unified cache of one CPU: (level, its shared_cpu_list, bytes).
struct CacheOf {
  int level = 0;
  std::string shared;
  std::size_t bytes = 0;
};

CacheOf last_cache_of(int cpu) {
  CacheOf best;
  const std::string base = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache/index";
  for (int index = 0; index < 16; ++index) {
    const std::string dir = base + std::to_string(index) + "/";
    const std::string type = read_line(dir + "type");
    if (type.empty()) break;
    if (type == "Instruction") continue;
    const int level = std::atoi(read_line(dir + "level").c_str());
    if (level > best.level)
      best = {level, read_line(dir + "shared_cpu_list"), parse_size(read_line(dir + "size"))};
  }
  return best;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The kernels, each in its own parallel loop with the static schedule of the first touch. The
// `simd` keeps GCC from turning the copy into memcpy (whose non-temporal stores skip the
// write-allocate that every kernel's stores pay).
double copy_seconds(double* c, const double* a, long long n) {
  Timer t;
#pragma omp parallel for simd schedule(static)
  for (long long i = 0; i < n; ++i) c[i] = a[i];
  return t.seconds();
}

double triad_seconds(double* a, const double* b, const double* c, long long n) {
  Timer t;
#pragma omp parallel for simd schedule(static)
  for (long long i = 0; i < n; ++i) a[i] = b[i] + kTriadScalar * c[i];
  return t.seconds();
}

}  // namespace

std::size_t last_level_cache_bytes() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::size_t total = 0;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int level = 0;
    std::set<std::string> seen;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (!CPU_ISSET(cpu, &set)) continue;
      const CacheOf c = last_cache_of(cpu);
      if (c.level < level || c.bytes == 0) continue;
      if (c.level > level) level = c.level, total = 0, seen.clear();
      if (seen.insert(c.shared).second) total += c.bytes;
    }
  }
  if (total == 0) {  // no sysfs: what the C library knows of the level-3 cache
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    total = l3 > 0 ? static_cast<std::size_t>(l3) : 0;
  }
  return total;
}

HostStream host_stream(std::size_t min_array_bytes) {
  HostStream r;
  r.cache_bytes = last_level_cache_bytes();
  r.array_bytes = std::max(min_array_bytes, 4 * r.cache_bytes);
  const long long n = static_cast<long long>(r.array_bytes / sizeof(double));
  Buffer<double> a(Space::host, n), b(Space::host, n), c(Space::host, n);
  double *pa = a.data(), *pb = b.data(), *pc = c.data();
#pragma omp parallel for simd schedule(static)
  for (long long i = 0; i < n; ++i) pa[i] = 1.0, pb[i] = 2.0, pc[i] = 0.0;
  std::vector<double> copy, triad;
  for (int rep = 0; rep < kRepeats; ++rep) {
    const double tc = copy_seconds(pc, pa, n), tt = triad_seconds(pa, pb, pc, n);
    if (rep > 0) copy.push_back(tc), triad.push_back(tt);
  }
  r.copy_GBs = 2.0 * sizeof(double) * n / median(copy) / 1e9;
  r.triad_GBs = 3.0 * sizeof(double) * n / median(triad) / 1e9;
  return r;
}

}  // namespace staghorn
