#pragma once
/// \file
/// Sequence numbers in pass-tree order, for the state machine's sections
/// whose frames may be attached across threads. Pipelines running in
/// parallel (MLIR's) start their passes interleaved, so numbering them by
/// start time would print one pipeline's passes under another in the
/// report's indented list. The report stays a tree when each record comes
/// right after its parent and before its parent's later children.

#include "passtiming/engine/profile.h"

namespace passtiming::detail {

/// Renumbers `section`'s sequences (and the parents that name them) in
/// depth-first pre-order of the parent links; siblings keep their start order
/// (start time, then old sequence). A record whose parent is not among the
/// records is a root. A single-threaded section comes back unchanged.
void renumber_in_tree_order(Section& section);

}  // namespace passtiming::detail
