#include "core/host_isa.hpp"

namespace staghorn {

std::string missing_host_isa() {
  std::string missing;
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
#if defined(__AVX2__)
  if (!__builtin_cpu_supports("avx2")) missing += " avx2";
#endif
#if defined(__FMA__)
  if (!__builtin_cpu_supports("fma")) missing += " fma";
#endif
#if defined(__AVX512F__)
  if (!__builtin_cpu_supports("avx512f")) missing += " avx512f";
#endif
#endif
  return missing;
}

}  // namespace staghorn
