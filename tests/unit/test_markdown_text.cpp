// Text from files made safe for Markdown, checked by hand against CommonMark's rules.
#include <gtest/gtest.h>

#include "autotune/detail/markdown_text.hpp"

namespace {

using scaletune::autotune::detail::markdown_code;
using scaletune::autotune::detail::markdown_text;

TEST(MarkdownText, EscapesWhatEndsACellOrOpensCodeLinksAndTags) {
  EXPECT_EQ(markdown_text("plain text, p* = 8 >= 3_x"), "plain text, p* = 8 >= 3_x");
  EXPECT_EQ(markdown_text("a|b"), "a\\|b");
  EXPECT_EQ(markdown_text("`x` <b> [l](u) c:\\d"), "\\`x\\` \\<b> \\[l](u) c:\\\\d");
  EXPECT_EQ(markdown_text("one\ntwo\r\tthree\x7f"), "one two  three ");
}

TEST(MarkdownCode, FencesLongerThanAnyBacktickRun) {
  EXPECT_EQ(markdown_code("results/run.h5"), "`results/run.h5`");
  EXPECT_EQ(markdown_code("a`b``c"), "```a`b``c```");
  EXPECT_EQ(markdown_code("`edge"), "`` `edge ``");
  EXPECT_EQ(markdown_code("new\nline"), "`new line`");
  EXPECT_EQ(markdown_code(""), "``");
}

}  // namespace
