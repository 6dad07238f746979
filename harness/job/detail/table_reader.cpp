#include "harness/job/detail/table_reader.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "harness/job/detail/edit_distance.hpp"
#include "harness/job/detail/text.hpp"
#include "harness/job/job_error.hpp"

namespace scaletune::job::detail {
namespace {

int line_of(const toml::source_region& where) {
  return static_cast<int>(where.begin.line);
}
int column_of(const toml::source_region& where) {
  return static_cast<int>(where.begin.column);
}

/// A number node's value; integers beyond 2^53 are rounded (TOML++'s value<double>() refuses
/// them, which would leave an empty optional).
double number_of(const toml::node& node) {
  if (const auto* integer = node.as_integer()) return static_cast<double>(integer->get());
  return node.as_floating_point()->get();
}

/// "expected one of A, B, C", with a did-you-mean hint when `word` is near one of them.
std::string expected_one_of(std::string_view word, std::span<const std::string_view> choices) {
  return "expected one of " + join(choices, ", ") + did_you_mean(word, choices);
}

}  // namespace

std::string_view type_word(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::integer:
      return "integer";
    case toml::node_type::floating_point:
      return "float";
    case toml::node_type::string:
      return "string";
    case toml::node_type::boolean:
      return "boolean";
    case toml::node_type::array:
      return "list";
    case toml::node_type::table:
      return "table";
    case toml::node_type::date:
      return "date";
    case toml::node_type::time:
      return "time";
    case toml::node_type::date_time:
      return "date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

TableReader::TableReader(const toml::table* table, std::string name, std::string_view file)
    : m_table(table), m_name(std::move(name)), m_file(file) {}

std::vector<std::string_view> TableReader::keys() const {
  std::vector<std::string_view> names;
  if (m_table == nullptr) return names;
  for (const auto& entry : *m_table) names.push_back(entry.first.str());
  return names;
}

const toml::node* TableReader::find(std::string_view key) const {
  return m_table == nullptr ? nullptr : m_table->get(key);
}

TableReader TableReader::table(std::string_view key) const {
  const toml::node* node = find(key);
  if (node != nullptr && !node->is_table()) fail_type(*node, key, "a table");
  return TableReader(node == nullptr ? nullptr : node->as_table(), std::string(key), m_file);
}

void TableReader::reject_unknown_keys(std::span<const std::string_view> allowed) const {
  if (m_table == nullptr) return;
  for (auto&& [key, node] : *m_table) {
    const std::string_view word = key.str();
    if (std::ranges::find(allowed, word) != allowed.end()) continue;
    throw JobError(std::string(m_file), line_of(key.source()), column_of(key.source()),
                   std::string(word), unknown_key_message(word, node, allowed));
  }
}

std::string TableReader::unknown_key_message(std::string_view word, const toml::node& node,
                                             std::span<const std::string_view> allowed) const {
  if (m_name.empty() && !node.is_table())
    return "key outside any table; keys belong under one of the tables " + join(allowed, ", ");
  const std::string what = m_name.empty() ? "unknown table [" + std::string(word) + "]"
                                          : "unknown key in [" + m_name + "]";
  const std::string hint = did_you_mean(word, allowed);
  if (!hint.empty()) return what + hint;
  return what + (m_name.empty() ? "; tables allowed: " : "; valid keys: ") + join(allowed, ", ");
}

void TableReader::require(std::string_view key, std::string_view expected) const {
  if (find(key) != nullptr) return;
  throw JobError(std::string(m_file), 0, 0, std::string(key),
                 m_name + "." + std::string(key) + " is required (" + std::string(expected) + ")");
}

std::optional<std::int64_t> TableReader::integer(std::string_view key, std::int64_t min,
                                                 std::int64_t max) const {
  const toml::node* node = find(key);
  if (node == nullptr) return std::nullopt;
  return as_integer(*node, key, min, max);
}

std::optional<double> TableReader::positive_number(std::string_view key, double max) const {
  const toml::node* node = find(key);
  if (node == nullptr) return std::nullopt;
  return as_positive_number(*node, key, max);
}

std::optional<double> TableReader::number_in(std::string_view key, double min, double max,
                                             std::string_view range) const {
  const toml::node* node = find(key);
  if (node == nullptr) return std::nullopt;
  if (!node->is_number()) fail_type(*node, key, "a number");
  const double value = number_of(*node);
  if (value >= min && value <= max) return value;
  fail(*node, key, std::string(key) + " must be " + std::string(range));
}

std::optional<bool> TableReader::boolean(std::string_view key) const {
  const toml::node* node = find(key);
  if (node == nullptr) return std::nullopt;
  if (!node->is_boolean()) fail_type(*node, key, "a boolean (true or false)");
  return node->as_boolean()->get();
}

std::optional<std::string> TableReader::string(std::string_view key) const {
  const toml::node* node = find(key);
  if (node == nullptr) return std::nullopt;
  return as_string(*node, key);
}

std::optional<std::string> TableReader::choice(std::string_view key,
                                               std::span<const std::string_view> choices) const {
  std::optional<std::string> value = string(key);
  if (!value || std::ranges::find(choices, *value) != choices.end()) return value;
  fail(*find(key), key,
       "unknown " + std::string(key) + " '" + *value + "'; " + expected_one_of(*value, choices));
}

std::optional<std::vector<std::string>> TableReader::choice_list(
    std::string_view key, std::span<const std::string_view> choices) const {
  const toml::node* node = find(key);
  if (node == nullptr) return std::nullopt;
  const toml::array* list = node->as_array();
  if (list == nullptr) fail_type(*node, key, "a list of strings");
  if (list->empty())
    fail(*node, key,
         std::string(key) + " must not be an empty list; expected one or more of " +
             join(choices, ", "));
  std::vector<std::string> words;
  for (const toml::node& element : *list) {
    std::string word = as_string(element, key);
    if (std::ranges::find(choices, word) == choices.end())
      fail(element, key,
           "unknown value '" + word + "' in " + std::string(key) + "; " +
               expected_one_of(word, choices));
    if (std::ranges::find(words, word) != words.end())
      fail(element, key, std::string(key) + " lists '" + word + "' twice; list each value once");
    words.push_back(std::move(word));
  }
  return words;
}

std::int64_t TableReader::as_integer(const toml::node& node, std::string_view key, std::int64_t min,
                                     std::int64_t max) const {
  if (!node.is_integer()) fail_type(node, key, "an integer");
  const std::int64_t value = node.as_integer()->get();
  if (value >= min && value <= max) return value;
  fail(node, key,
       std::string(key) + " must be >= " + std::to_string(min) + " and <= " + std::to_string(max));
}

double TableReader::as_positive_number(const toml::node& node, std::string_view key,
                                       double max) const {
  if (!node.is_number()) fail_type(node, key, "a number");
  const double value = number_of(node);
  if (value > 0.0 && value <= max && std::isfinite(value)) return value;
  fail(node, key,
       std::string(key) + " must be > 0 and " +
           (std::isfinite(max) ? "<= " + format_number(max) : std::string("finite")));
}

std::string TableReader::as_string(const toml::node& node, std::string_view key) const {
  if (!node.is_string()) fail_type(node, key, "a string");
  std::string value = node.as_string()->get();
  if (value.empty()) fail(node, key, std::string(key) + " must not be an empty string");
  return value;
}

void TableReader::fail(const toml::node& node, std::string_view key,
                       const std::string& message) const {
  throw JobError(std::string(m_file), line_of(node.source()), column_of(node.source()),
                 std::string(key), message);
}

void TableReader::fail_type(const toml::node& node, std::string_view key,
                            std::string_view expected) const {
  fail(node, key,
       std::string(key) + ": " + std::string(type_word(node)) + " where " + std::string(expected) +
           " is expected");
}

}  // namespace scaletune::job::detail
