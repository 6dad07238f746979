#pragma once
// Helpers of the job-parser tests: editing a job's text line by line, finding a line, and
// catching the JobError a text raises.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness/job/job_error.hpp"
#include "harness/job/job_parser.hpp"
#include "tests/support/text_lines.hpp"

namespace scaletune::testing_support {

/// `text` with its first line equal to `old_line` replaced by `new_line` (removed when empty);
/// a test failure when there is no such line.
inline std::string replaced_line(const std::string& text, const std::string& old_line,
                                 const std::string& new_line) {
  std::vector<std::string> lines = lines_of(text);
  const auto at = std::ranges::find(lines, old_line);
  EXPECT_NE(at, lines.end()) << "no line " << old_line;
  std::string result;
  for (auto line = lines.begin(); line != lines.end(); ++line) {
    if (line != at) {
      result += *line + "\n";
    } else if (!new_line.empty()) {
      result += new_line + "\n";
    }
  }
  return result;
}

/// 1-based line of the first occurrence of `needle` in `text`, counted naively.
inline int line_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The JobError parse_job_text(text, path) throws; a test failure (and an empty error) when it
/// throws none.
inline job::JobError job_error_of(const std::string& text, const std::string& path) {
  try {
    job::parse_job_text(text, path);
  } catch (const job::JobError& e) {
    return e;
  }
  ADD_FAILURE() << "no JobError for:\n" << text;
  return job::JobError("", -1, -1, "", "");
}

}  // namespace scaletune::testing_support
