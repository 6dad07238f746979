#pragma once
// Text from files (job and table names, system names, host names, error messages, attributes
// edited with h5py) made safe to put into a Markdown report.

#include <string>
#include <string_view>

namespace scaletune::autotune::detail {

/// `text` for running Markdown (a table cell, a list item, a heading, a sentence): line breaks
/// and other control characters become spaces, and \ ` [ < | are backslash-escaped (CommonMark
/// 0.30, "Backslash escapes": any ASCII punctuation may be), so the text cannot end a table cell
/// or its line (and so start a heading, a list or a link definition), open a code span, a link,
/// an image or an HTML tag. Emphasis (* _) is left as it renders. Renders as `text` does where
/// it holds none of these.
std::string markdown_text(std::string_view text);

/// `text` as a Markdown code span (control characters as spaces): fenced by one backtick more
/// than its longest run of backticks, with a space inside each fence when it starts or ends
/// with a backtick (CommonMark 0.30, "Code spans").
std::string markdown_code(std::string_view text);

}  // namespace scaletune::autotune::detail
