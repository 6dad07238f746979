#include "autotune/detail/nccl_tests_context.hpp"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

namespace scaletune::autotune::detail {

namespace {

bool is_name_char(char c) {
  return std::islower(static_cast<unsigned char>(c)) != 0 ||
         std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '_';
}

/// "all_reduce" from the first "<name>_perf" word in `line`, empty when there is none.
std::string perf_binary_op(std::string_view line) {
  constexpr std::string_view suffix = "_perf";
  for (std::size_t at = line.find(suffix); at != std::string_view::npos;
       at = line.find(suffix, at + 1)) {
    const std::size_t after = at + suffix.size();
    if (after < line.size() && is_name_char(line[after])) continue;
    std::size_t begin = at;
    while (begin > 0 && is_name_char(line[begin - 1])) --begin;
    if (begin < at) return std::string(line.substr(begin, at - begin));
  }
  return {};
}

/// The words after a leading '#', empty when `line` is not a comment.
std::vector<std::string_view> comment_words(std::string_view line) {
  const std::vector<std::string_view> words = split_words(line);
  if (words.empty() || words[0].front() != '#') return {};
  std::string_view first = words[0];
  first.remove_prefix(1);
  std::vector<std::string_view> rest;
  if (!first.empty()) rest.push_back(first);
  rest.insert(rest.end(), words.begin() + 1, words.end());
  return rest;
}

bool starts_test(const std::vector<std::string_view>& words) {
  return (!words.empty() && words[0] == "nThread") ||
         (words.size() >= 3 && words[0] == "Collective" && words[1] == "test" &&
          words[2] == "starting:");
}

bool is_rank_line(const std::vector<std::string_view>& words) {
  return words.size() >= 2 && words[0] == "Rank" && is_unsigned_integer(words[1]);
}

/// The host of a "Rank N [Group G] Pid P on HOST device D ..." line; empty when it names none.
std::string_view rank_host(const std::vector<std::string_view>& words) {
  const auto on = std::find(words.begin(), words.end(), "on");
  return on != words.end() && on + 1 != words.end() ? *(on + 1) : std::string_view();
}

}  // namespace

std::string op_named_in(std::string_view line) {
  const std::vector<std::string_view> words = comment_words(line);
  if (words.size() >= 2 && words[0] == "op:") {
    std::string op(words[1]);
    if (op.ends_with("_perf")) op.resize(op.size() - 5);
    return op;
  }
  return perf_binary_op(line);
}

void NcclTestsContext::read(std::string_view line, const LogPlace& place) {
  const std::vector<std::string_view> words = comment_words(line);
  if (auto columns = columns_from_header(words, place)) {
    m_columns = std::move(*columns);
    m_table.header();
    return;
  }
  m_table.other(split_words(line));
  if (is_rank_line(words)) {
    ++m_ranks;
    if (const std::string_view host = rank_host(words); !host.empty()) m_hosts.emplace(host);
    return;
  }
  if (starts_test(words)) {
    m_ranks = 0;
    m_hosts.clear();
    m_table.end();
  }
  if (std::string op = op_named_in(line); !op.empty()) {
    m_op = std::move(op);
    m_table.end();
  }
}

}  // namespace scaletune::autotune::detail
