// The interned-name table: ids are dense and stable in interning order, equal text gives the same
// id across the table's growth, and find() never interns.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/strings.h"

using namespace ofg;

TEST(IrStrings, InternFindAndGrow) {
  Arena arena;
  StringTable t(arena);
  EXPECT_EQ(t.find(""), 0u);  // interned by the constructor
  EXPECT_EQ(t.find("x"), kNoStr);
  EXPECT_EQ(t.size(), 1u);
  // Enough names to grow the slot array several times; names that share long prefixes and
  // differ late (as exported value names do), and lengths around the 8-byte steps of the hash.
  std::vector<std::string> names;
  for (int i = 0; i < 5000; ++i)
    names.push_back("/encoder/layers." + std::to_string(i % 97) + "/attention/MatMul_" + std::to_string(i));
  for (int n = 1; n <= 17; ++n) names.push_back(std::string(n, 'a'));
  for (size_t i = 0; i < names.size(); ++i) ASSERT_EQ(t.intern(names[i]), i + 1) << names[i];
  EXPECT_EQ(t.size(), names.size() + 1);
  for (size_t i = 0; i < names.size(); ++i) {
    ASSERT_EQ(t.intern(names[i]), i + 1);
    ASSERT_EQ(t.find(names[i]), i + 1);
    ASSERT_EQ(t.view(static_cast<StrId>(i + 1)), names[i]);
    ASSERT_EQ(std::string(t.c_str(static_cast<StrId>(i + 1))), names[i]);
  }
  EXPECT_EQ(t.find("/encoder/layers.0/attention/MatMul_5000"), kNoStr);
  EXPECT_EQ(t.size(), names.size() + 1);
  EXPECT_EQ(t.view(kNoStr), "");
  EXPECT_STREQ(t.c_str(kNoStr), "");
}
