#include "autotune/detail/log_table.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace scaletune::autotune::detail {

namespace {

bool is_digit_at(std::string_view word, std::size_t at) {
  return at < word.size() && std::isdigit(static_cast<unsigned char>(word[at])) != 0;
}

/// True when `word` starts like a number: a digit, or a sign or '.' before a digit ("-16",
/// "+.5", "16k"); "..." and "-" do not.
bool is_number_like(std::string_view word) {
  std::size_t at = 0;
  if (at < word.size() && (word[at] == '+' || word[at] == '-')) ++at;
  if (at < word.size() && word[at] == '.') ++at;
  return is_digit_at(word, at);
}

bool is_comment(const std::vector<std::string_view>& words) {
  return !words.empty() && words[0].front() == '#';
}

/// NCCL's own messages and "..." elisions: lines real logs interleave with table rows.
bool is_noise(const std::vector<std::string_view>& words) {
  return words[0].starts_with("...") || std::ranges::find(words, "NCCL") != words.end();
}

}  // namespace

void TableSpan::header() {
  m_inside = true;
  m_has_rows = false;
}

void TableSpan::row() {
  m_inside = true;
  m_has_rows = true;
}

void TableSpan::end() {
  m_inside = false;
  m_has_rows = false;
}

void TableSpan::other(const std::vector<std::string_view>& words) {
  if (words.empty() || (m_has_rows && is_comment(words))) end();
}

void expect_no_unreadable_row(const std::vector<std::string_view>& words, bool inside_table,
                              std::size_t columns, std::string_view size_column,
                              const LogPlace& place) {
  if (words.empty() || is_comment(words) || is_noise(words)) return;
  const bool number_like = is_number_like(words[0]);
  const bool row_width = words.size() == columns;
  if ((inside_table && (number_like || row_width)) || (number_like && row_width))
    place.fail("column '" + std::string(size_column) +
               "': expected a message size in bytes (an unsigned integer), found '" +
               std::string(words[0]) + "'");
}

}  // namespace scaletune::autotune::detail
