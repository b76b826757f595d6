#include "passtiming/names.h"

#include <gtest/gtest.h>

namespace passtiming {
namespace {

TEST(NameTableTest, EmptyStringIsIdZero) {
  NameTable names;
  EXPECT_EQ(names.intern(""), 0u);
  EXPECT_EQ(names[0], "");
  EXPECT_EQ(names.size(), 1u);
}

TEST(NameTableTest, InternsOnce) {
  NameTable names;
  const NameId a = names.intern("InstCombinePass");
  const NameId b = names.intern(std::string("SROAPass"));
  EXPECT_NE(a, b);
  EXPECT_EQ(names.intern(std::string("InstCombinePass")), a);
  EXPECT_EQ(names[a], "InstCombinePass");
  EXPECT_EQ(names.find("SROAPass"), b);
  EXPECT_EQ(names.find("GVNPass"), NameTable::npos);
  EXPECT_EQ(names.string_bytes(), 23u);
}

TEST(NameTableTest, ReusedBufferWithNewContentsIsNotMistaken) {
  NameTable names;
  char buffer[] = "alpha";
  const NameId a = names.intern(buffer);
  buffer[0] = 'A';  // same address and size, different text
  const NameId b = names.intern(buffer);
  EXPECT_NE(a, b);
  EXPECT_EQ(names[b], "Alpha");
}

TEST(NameTableTest, CopiesAndMovesKeepTheIndex) {
  NameTable names;
  for (int i = 0; i < 100; ++i) names.intern("pass" + std::to_string(i));
  NameTable copy = names;
  EXPECT_EQ(copy.find("pass42"), names.find("pass42"));
  NameTable moved = std::move(copy);
  EXPECT_EQ(moved.find("pass99"), names.find("pass99"));
  EXPECT_EQ(moved.intern("pass7"), names.find("pass7"));
  EXPECT_EQ(moved[names.find("pass7")], "pass7");
}

}  // namespace
}  // namespace passtiming
