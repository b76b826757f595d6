#include "tree_order.h"

#include <gtest/gtest.h>

#include "passtiming/timing_state.h"

namespace passtiming::mlir_adapter {
namespace {

std::vector<std::pair<std::string, std::uint32_t>> by_sequence(const Section& s) {
  std::vector<std::pair<std::string, std::uint32_t>> out;
  for (std::uint32_t i : s.order_by_sequence()) {
    out.emplace_back(std::string(s.name_of(s.records[i])), s.records[i].parent);
  }
  return out;
}

TEST(TreeOrderTest, InterleavedPipelinesBecomeContiguous) {
  // Two pipelines on threads 2 and 3 start interleaved under an adaptor.
  TimingStateMachine sm;
  sm.enter(0);
  const std::uint32_t adaptor = sm.before(0, "adaptor", "", 1, nullptr);
  const ParentRef parent{1, adaptor};
  sm.before(1, "p-f", "f", 2, &parent);
  sm.before(2, "p-g", "g", 3, &parent);
  sm.before(3, "f1", "f", 2, nullptr);
  sm.before(4, "g1", "g", 3, nullptr);
  sm.after(5, "f1", 2);
  sm.after(6, "g1", 3);
  sm.after(7, "p-f", 2);
  sm.after(8, "p-g", 3);
  sm.after(9, "adaptor", 1);
  sm.before(10, "last", "", 1, nullptr);
  sm.after(11, "last", 1);
  Section s = sm.take_section();
  renumber_in_tree_order(s);
  using V = std::vector<std::pair<std::string, std::uint32_t>>;
  EXPECT_EQ(by_sequence(s), (V{{"adaptor", kNoParent},
                               {"p-f", 0},
                               {"f1", 1},
                               {"p-g", 0},
                               {"g1", 3},
                               {"last", kNoParent}}));
}

TEST(TreeOrderTest, SingleThreadSectionIsUnchanged) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.before(0, "a", "");
  sm.before(1, "b", "");
  sm.after(2, "b");
  sm.before(2, "c", "");
  sm.after(3, "c");
  sm.after(4, "a");
  Section s = sm.take_section();
  const std::vector<Record> before = s.records;
  renumber_in_tree_order(s);
  ASSERT_EQ(s.records.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(s.records[i].sequence, before[i].sequence);
    EXPECT_EQ(s.records[i].parent, before[i].parent);
  }
}

TEST(TreeOrderTest, RecordWhoseParentWasDiscardedBecomesARoot) {
  TimingStateMachine sm;
  sm.enter(0);
  sm.before(0, "crashed", "");
  sm.before(1, "done", "");
  sm.after(2, "done");
  sm.exit(3);  // "crashed" never completed
  Section s = sm.take_section();
  renumber_in_tree_order(s);
  ASSERT_EQ(s.records.size(), 1u);
  EXPECT_EQ(s.records[0].sequence, 0u);
  EXPECT_EQ(s.records[0].parent, kNoParent);
  EXPECT_EQ(s.records[0].depth, 1);
}

}  // namespace
}  // namespace passtiming::mlir_adapter
