#include "autotune/detail/log_text.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace scaletune::autotune::detail {

namespace {

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}
bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

/// Length of a leading "  12:" (srun -l) prefix, 0 when there is none.
std::size_t srun_prefix_length(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  const std::size_t digits_begin = i;
  while (i < line.size() && is_digit(line[i])) ++i;
  if (i == digits_begin || i >= line.size() || line[i] != ':') return 0;
  return i + 1;
}

/// Length of a leading "[1,0]<stdout>:" (mpirun --tag-output) prefix, 0 when there is none.
std::size_t tag_output_prefix_length(std::string_view line) {
  if (line.empty() || line[0] != '[') return 0;
  const std::size_t close = line.find(']');
  if (close == std::string_view::npos) return 0;
  const std::string_view ids = line.substr(1, close - 1);
  const std::size_t comma = ids.find(',');
  if (comma == std::string_view::npos || !is_unsigned_integer(ids.substr(0, comma)) ||
      !is_unsigned_integer(ids.substr(comma + 1)))
    return 0;
  for (const std::string_view stream : {"<stdout>:", "<stderr>:"})
    if (line.substr(close + 1, stream.size()) == stream) return close + 1 + stream.size();
  return 0;
}

std::string quoted(std::string_view word) {
  return "'" + std::string(word) + "'";
}

}  // namespace

std::string LogPlace::str() const {
  return std::string(path) + ":" + std::to_string(line);
}

void LogPlace::fail(const std::string& what) const {
  throw std::invalid_argument(str() + ": " + what);
}

std::string_view strip_launcher_prefix(std::string_view line) {
  if (const std::size_t n = tag_output_prefix_length(line); n > 0) return line.substr(n);
  return line.substr(srun_prefix_length(line));
}

std::vector<LogLine> log_lines(std::string_view text) {
  std::vector<LogLine> lines;
  std::size_t begin = 0;
  int number = 1;
  while (begin < text.size()) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back({strip_launcher_prefix(line), number++});
    begin = end + 1;
  }
  return lines;
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t begin = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > begin) words.push_back(line.substr(begin, i - begin));
  }
  return words;
}

bool is_unsigned_integer(std::string_view word) {
  if (word.empty()) return false;
  for (const char c : word)
    if (!is_digit(c)) return false;
  return true;
}

std::int64_t read_integer(std::string_view word, std::string_view column, const LogPlace& place) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc() || end != word.data() + word.size())
    place.fail("column '" + std::string(column) + "': expected an integer, found " + quoted(word));
  return value;
}

double read_number(std::string_view word, std::string_view column, const LogPlace& place) {
  double value = 0.0;
  const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc() || end != word.data() + word.size() || !std::isfinite(value))
    place.fail("column '" + std::string(column) + "': expected a number, found " + quoted(word));
  return value;
}

}  // namespace scaletune::autotune::detail
