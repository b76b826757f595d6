#pragma once
/// \file
/// The invariants every fuzz target checks, and the abort that turns a
/// violation into a libFuzzer finding (with the input saved as a crash file).

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include "passtiming/engine/profile.h"
#include "passtiming/formats/report.h"

namespace passtiming::fuzz {

/// Aborts with `what` when `ok` is false. Used instead of assert() so that
/// the checks stay on in optimised builds.
inline void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
  std::abort();
}

/// a + b for non-negative durations, stopping at the largest value as the
/// state machine does: crafted event logs carry timestamps near 2^63.
inline Nanoseconds saturating_sum(Nanoseconds a, Nanoseconds b) {
  return a > std::numeric_limits<Nanoseconds>::max() - b ? std::numeric_limits<Nanoseconds>::max()
                                                         : a + b;
}

/// The invariants of a section that a monotonic clock produced: sequences
/// unique, order_by_sequence sorted, 0 <= self <= inclusive, a parent's self
/// time equal to its inclusive time minus its recorded children's, depth-0
/// inclusive durations summing to total_seconds(), and a report that renders.
/// `elapsed_ns` bounds the depth-0 sum (negative: no bound). Rendering is the
/// costliest check, so a caller that checks often may render only sometimes.
inline void check_section(const Section& s, Nanoseconds elapsed_ns, bool render = true) {
  // Vectors indexed by sequence rather than ordered maps: the check runs
  // after every exit of every input, and sequences are dense from 0.
  std::uint32_t max_sequence = 0;
  for (const Record& r : s.records) {
    check(r.sequence != kNoParent, "sequence out of range");
    max_sequence = std::max(max_sequence, r.sequence);
    check(r.inclusive_ns >= 0, "negative inclusive time");
    check(r.self_ns >= 0, "negative self time");
    check(r.self_ns <= r.inclusive_ns, "self time above inclusive time");
    check(r.name < s.names.size() && r.kernel < s.names.size(), "name id out of range");
    check(r.thread < s.threads.size() || s.threads.empty(), "thread index out of range");
  }
  const std::size_t slots = s.records.empty() ? 0 : std::size_t{max_sequence} + 1;
  std::vector<const Record*> by_sequence(slots, nullptr);
  for (const Record& r : s.records) {
    check(by_sequence[r.sequence] == nullptr, "duplicate sequence");
    by_sequence[r.sequence] = &r;
  }
  const auto order = s.order_by_sequence();
  check(order.size() == s.records.size(), "order_by_sequence lost records");
  for (std::size_t i = 1; i < order.size(); ++i) {
    check(s.records[order[i - 1]].sequence < s.records[order[i]].sequence,
          "records not sorted by sequence");
  }
  std::vector<Nanoseconds> children_ns(slots, 0);
  std::vector<bool> has_children(slots, false);
  for (const Record& r : s.records) {
    if (r.parent == kNoParent || r.parent >= slots) continue;  // parent never completed
    children_ns[r.parent] = saturating_sum(children_ns[r.parent], r.inclusive_ns);
    has_children[r.parent] = true;
  }
  for (std::size_t sequence = 0; sequence < slots; ++sequence) {
    const Record* p = by_sequence[sequence];
    if (!p || !has_children[sequence]) continue;  // the parent never completed
    const Nanoseconds sum = children_ns[sequence];
    const Nanoseconds expected = p->inclusive_ns > sum ? p->inclusive_ns - sum : 0;
    check(p->self_ns == expected, "self time is not inclusive minus children");
  }
  double total = 0.0;
  Nanoseconds total_ns = 0;
  for (const Record& r : s.records) {
    if (r.depth != 0) continue;
    total += to_seconds(r.inclusive_ns);
    total_ns = saturating_sum(total_ns, r.inclusive_ns);
  }
  check(total == s.total_seconds(), "depth-0 durations do not sum to the total");
  if (elapsed_ns >= 0) check(total_ns <= elapsed_ns, "depth-0 time exceeds the elapsed time");
  if (!render) return;
  const std::string report = render_report(s, 0.0, s.context);
  check(!report.empty(), "empty report");
}

}  // namespace passtiming::fuzz
