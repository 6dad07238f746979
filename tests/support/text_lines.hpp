#pragma once
// Splitting text into lines and reading whole files, for tests that check printed or parsed
// text line by line, and the message a parser throws.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace scaletune::testing_support {

/// The lines of `text`, without their newlines.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// The whole text of the file at `path`; a test failure (and "") when it cannot be opened.
inline std::string file_text(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The message of the std::invalid_argument `action` throws; empty when it throws none.
template <typename Action>
std::string invalid_argument_of(Action action) {
  try {
    action();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

}  // namespace scaletune::testing_support
