// TOML key spelling and the key a document defines twice, read from its line (toml++ 3.3's own
// message garbles quoted keys). Descriptions and positions below are what toml++ 3.3 reports for
// each text.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/job/toml_keys.hpp"

namespace scaletune::job {
namespace {

using Key = std::vector<std::string>;

TEST(TomlKeys, BareKeysAreLettersDigitsUnderscoresAndDashes) {
  EXPECT_TRUE(is_bare_key("memory_gib"));
  EXPECT_TRUE(is_bare_key("A30-PCIE-24GB"));
  EXPECT_FALSE(is_bare_key("NVIDIA A30"));
  EXPECT_FALSE(is_bare_key("a.b"));
  EXPECT_FALSE(is_bare_key(""));
  EXPECT_EQ(toml_quoted("NVIDIA A30"), "\"NVIDIA A30\"");
  EXPECT_EQ(toml_quoted("say \"hi\" \\o/"), "\"say \\\"hi\\\" \\\\o/\"");
}

TEST(TomlKeys, RepeatedKeyUnderAHeaderIsNamedInFull) {
  const auto r = redefinition(
      "[run]\nwarmup = 1\n  warmup = 2\n",
      "Error while parsing key-value pair: cannot redefine existing integer 'warmup'", 3, 12);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->key, (Key{"run", "warmup"}));
  EXPECT_EQ(r->line, 3u);
  EXPECT_EQ(r->column, 3u);  // the key's first character
}

TEST(TomlKeys, QuotedKeyComesFromTheLineNotTheGarbledMessage) {
  const std::string text =
      "currency = \"EUR\"\n[per_device_hour]\n\"NVIDIA A30\" = 1.5\n\"NVIDIA A30\" = 2.0\n";
  const auto r =
      redefinition(text,
                   "Error while parsing key-value pair: cannot redefine existing floating-point "
                   "'\"NVNVIDIA A30\" '",
                   4, 16);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->key, (Key{"per_device_hour", "NVIDIA A30"}));
  EXPECT_EQ(r->column, 1u);
}

TEST(TomlKeys, RepeatedTableIsNamedByItsHeader) {
  const auto r =
      redefinition("[run]\nwarmup = 1\n[run]\n",
                   "Error while parsing table header: cannot redefine existing table 'run'", 3, 1);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->key, Key{"run"});
}

TEST(TomlKeys, InlineTableFallsBackToABareKeyOfTheMessage) {
  const auto bare = redefinition(
      "x = {a = 1, a = 2}\n",
      "Error while parsing key-value pair: cannot redefine existing integer 'a'", 1, 17);
  ASSERT_TRUE(bare.has_value());
  EXPECT_EQ(bare->key, Key{"a"});
  EXPECT_EQ(bare->column, 17u);  // the parser's: the line does not tell where
  const auto quoted = redefinition(
      "x = {\"a b\" = 1, \"a b\" = 2}\n",
      "Error while parsing key-value pair: cannot redefine existing integer '\"a a b\" '", 1, 25);
  ASSERT_TRUE(quoted.has_value());
  EXPECT_TRUE(quoted->key.empty());  // the message garbles quoted keys: not used
}

TEST(TomlKeys, OtherErrorsAreNoRedefinition) {
  EXPECT_FALSE(redefinition("a = \"x\n", "encountered end-of-file", 1, 7).has_value());
}

}  // namespace
}  // namespace scaletune::job
