#include "engine/huge_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace passtiming::detail {

/// Below this a buffer holds at most one huge page: not worth a system call.
constexpr std::size_t kMinAdvisedBytes = std::size_t{4} << 20;

void advise_huge_pages(const void* data, std::size_t bytes) noexcept {
#ifdef MADV_HUGEPAGE
  if (data == nullptr || bytes < kMinAdvisedBytes) return;
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + page - 1) & ~(page - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(page - 1);
  if (end <= begin) return;
  // Advice only: on failure (no THP in this kernel) the pages stay 4 KiB.
  (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace passtiming::detail
