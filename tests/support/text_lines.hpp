#pragma once
// Splitting text into lines, for tests that check printed or parsed text line by line.

#include <sstream>
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

}  // namespace scaletune::testing_support
