#pragma once
/// \file
/// A file written through a shared mapping that grows in place: an address
/// range reserved once, aligned to huge pages, into which the file is mapped
/// chunk by chunk, its blocks allocated and its pages populated before they
/// are written. The event log writes through it (event_log_writer.cc says
/// why), and the event-log benchmark measures its floor with it.

#include <cstddef>

namespace passtiming::detail {

/// A huge page (x86-64, AArch64 with 4 KiB pages): the alignment of the
/// ranges and the chunks, so the kernel can map each chunk with one entry.
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

/// Address space reserved without memory (PROT_NONE, MAP_NORESERVE).
struct ReservedRange {
  char* base = nullptr;  ///< null: nothing reserved
  std::size_t size = 0;
};

/// Reserves the largest range of `max_bytes`, `max_bytes / 2`, … down to
/// `min_bytes` that the process can have, starting at a multiple of
/// `alignment` (a power of two): the bytes before the first boundary are
/// given back, so the range is up to `alignment` - 1 bytes smaller than
/// asked. Reserving costs no memory; it bounds how far a mapping can grow.
/// Returns an empty range, with errno set, when none can be reserved. The
/// caller releases it with munmap(base, size).
ReservedRange reserve_aligned_range(std::size_t max_bytes, std::size_t min_bytes,
                                    std::size_t alignment) noexcept;

/// Maps bytes [`offset`, `offset` + `size`) of the file `fd` for reading and
/// writing, shared, at `at` (inside a reserved range, as aligned as the
/// offset): first allocates the file's blocks (posix_fallocate, so a full
/// disk is this call's error and never a SIGBUS on a later store), then maps
/// them, then asks for huge pages and faults every page in (both hints: a
/// kernel or file system that cannot leaves the mapping as it is). Returns 0,
/// or the errno value of the step that failed.
int map_file_populated(int fd, char* at, std::size_t offset, std::size_t size) noexcept;

}  // namespace passtiming::detail
