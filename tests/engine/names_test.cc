#include "passtiming/engine/names.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

TEST(NameCacheTest, ReusedBufferWithNewContentsIsNotMistaken) {
  NameTable names;
  NameCache cache;
  char buffer[] = "alpha";
  const NameId a = cache.intern(names, buffer);
  EXPECT_EQ(cache.intern(names, buffer), a);
  buffer[0] = 'A';  // same address and size, different text
  const NameId b = cache.intern(names, buffer);
  EXPECT_NE(a, b);
  EXPECT_EQ(names[b], "Alpha");
  EXPECT_EQ(names.find("alpha"), a);
}

TEST(NameCacheTest, AClearedTableIsNeverGivenAStaleId) {
  NameTable names;
  NameCache cache;
  const std::string first = "InstCombinePass";
  const std::string second = "SROAPass";
  cache.intern(names, first);
  const NameId sroa = cache.intern(names, second);
  EXPECT_EQ(sroa, 2u);
  names.clear();
  // The cached id 2 is beyond the cleared table: the text is interned anew.
  EXPECT_EQ(cache.intern(names, second), 1u);
  EXPECT_EQ(names[1], "SROAPass");
  // The cached id 1 now names another string: not trusted either.
  EXPECT_EQ(cache.intern(names, first), 2u);
  EXPECT_EQ(names[2], "InstCombinePass");
  EXPECT_EQ(names.size(), 3u);
}

TEST(NameCacheTest, AStableLookupAfterAClearNeverTrustsASlotOfTheOldTable) {
  // clear() leaves the slots in place for intern(), which checks each
  // against the table; intern_stable() trusts a slot by address, so it must
  // not see one that names the cleared table's ids.
  NameTable names;
  NameCache cache;
  const std::string first = "InstCombinePass";
  const std::string second = "SROAPass";
  cache.intern(names, first);
  cache.intern(names, second);  // id 2, remembered by its address
  names.clear();
  cache.clear();
  // The slot of `second` says 2, beyond the cleared table.
  EXPECT_EQ(cache.intern_stable(names, second), 1u);
  EXPECT_EQ(names[1], "SROAPass");
  EXPECT_EQ(cache.intern(names, first), 2u);
  names.clear();
  cache.clear();
  EXPECT_EQ(cache.intern_stable(names, second), 1u);
  EXPECT_EQ(names[1], "SROAPass");
  EXPECT_EQ(cache.intern(names, first), 2u);
  EXPECT_EQ(cache.intern_stable(names, first), 2u);
}

TEST(NameCacheTest, AnswersAsTheTableDoesWhateverItKept) {
  // Many buffers, more than the sets, all interned twice in turn: every
  // answer must be the table's own, whatever the cache kept.
  NameTable names;
  NameCache cache;
  std::vector<std::string> texts;
  for (int i = 0; i < 3000; ++i) texts.push_back("function_" + std::to_string(i));
  for (int round = 0; round < 2; ++round) {
    for (const std::string& text : texts) {
      const NameId id = cache.intern(names, text);
      EXPECT_EQ(id, names.find(text));
    }
  }
  EXPECT_EQ(names.size(), texts.size() + 1);
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
