#include "file_mapping.h"

#include <fcntl.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstdint>

namespace passtiming::detail {

ReservedRange reserve_aligned_range(std::size_t max_bytes, std::size_t min_bytes,
                                    std::size_t alignment) noexcept {
  for (std::size_t size = max_bytes; size >= min_bytes && size != 0; size /= 2) {
    void* range =
        ::mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (range == MAP_FAILED) continue;
    // Start at the first boundary; give back the bytes before it.
    const auto at = reinterpret_cast<std::uintptr_t>(range);
    const std::size_t slack = ((at + alignment - 1) & ~std::uintptr_t{alignment - 1}) - at;
    if (slack != 0) ::munmap(range, slack);
    return {static_cast<char*>(range) + slack, size - slack};
  }
  return {};
}

int map_file_populated(int fd, char* at, std::size_t offset, std::size_t size) noexcept {
  if (int error = ::posix_fallocate(fd, static_cast<off_t>(offset), static_cast<off_t>(size))) {
    return error;
  }
  void* mapped = ::mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                        static_cast<off_t>(offset));
  if (mapped == MAP_FAILED) return errno;
#ifdef MADV_HUGEPAGE
  ::madvise(mapped, size, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
  // One call faults the whole range in.
  ::madvise(mapped, size, MADV_POPULATE_WRITE);
#endif
  return 0;
}

}  // namespace passtiming::detail
