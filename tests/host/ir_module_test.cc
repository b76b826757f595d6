#include "passtiming/host/ir_module.h"

#include <gtest/gtest.h>

namespace passtiming {
namespace {

TEST(KernelLabelTest, ZeroOneAndSeveralFunctions) {
  EXPECT_EQ(IRModule().kernel_label(), "");
  EXPECT_EQ(IRModule({{"main", "matmul_kernel"}}).kernel_label(), "matmul_kernel");
  EXPECT_EQ(IRModule({{"main", ""}}).kernel_label(), "main");  // no symbol: its name
  EXPECT_EQ(IRModule({{"a", "k1"}, {"b", "k2"}}).kernel_label(), "k1 +1 more");
  EXPECT_EQ(IRModule({{"a", "k1"}, {"b", "k2"}, {"c", "k3"}}).kernel_label(), "k1 +2 more");
}

TEST(KernelLabelTest, CountsDistinctOtherNames) {
  EXPECT_EQ(IRModule({{"a", "k"}, {"b", "k"}}).kernel_label(), "k");
  EXPECT_EQ(IRModule({{"a", "k"}, {"b", "j"}, {"c", "j"}, {"d", "k"}}).kernel_label(), "k +1 more");
}

TEST(KernelLabelTest, LabelFollowsChanges) {
  IRModule mod({{"a", "k1"}});
  EXPECT_EQ(mod.kernel_label(), "k1");
  mod.add_function({"b", "k2"});
  EXPECT_EQ(mod.kernel_label(), "k1 +1 more");
  mod.clear();
  EXPECT_EQ(mod.kernel_label(), "");
}

TEST(KernelLabelTest, FreeFunction) {
  EXPECT_EQ(kernel_label({}), "");
  EXPECT_EQ(kernel_label({"f"}), "f");
  EXPECT_EQ(kernel_label({"f", "g", "h", "g"}), "f +2 more");
}

}  // namespace
}  // namespace passtiming
