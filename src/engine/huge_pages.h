#pragma once
/// \file
/// Large buffers backed by 2 MiB pages. On the virtual machines compilers
/// increasingly run on, the first touch of each 4 KiB page of fresh memory
/// is a page fault costing microseconds, so filling 48 MB of records can cost
/// more than parsing the JSON they come from. One fault per 2 MiB removes
/// almost all of that.

#include <cstddef>

namespace passtiming::detail {

/// Asks the kernel to back the page-aligned interior of [data, data + bytes)
/// with transparent huge pages when it is first touched. Meant for storage
/// just reserved and not yet written (a vector after reserve()); a no-op for
/// small buffers and where the kernel does not support it.
void advise_huge_pages(const void* data, std::size_t bytes) noexcept;

}  // namespace passtiming::detail
