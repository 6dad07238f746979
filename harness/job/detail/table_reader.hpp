#pragma once
// Typed, checked access to one table of a parsed job file. Every failure is a JobError that
// names the file, the line and column of the offending node, the key and what was expected.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

namespace scaletune::job::detail {

/// The word a message uses for a node's type: "integer", "float", "string", "boolean", "list",
/// "table", "date", "time" or "date-time".
std::string_view type_word(const toml::node& node);

/// The text of each of `values` (an enum's values and its text function, option_values.hpp),
/// in order.
template <class Enum, std::size_t N>
std::array<std::string_view, N> words_of(const std::array<Enum, N>& values,
                                         std::string_view (*text)(Enum)) {
  std::array<std::string_view, N> words{};
  std::ranges::transform(values, words.begin(), text);
  return words;
}

/// The value of `values` whose text is `word`; throws std::out_of_range when none is.
template <class Enum, std::size_t N>
Enum value_of(const std::array<Enum, N>& values, std::string_view (*text)(Enum),
              std::string_view word) {
  const auto found = std::ranges::find(values, word, text);
  if (found == values.end()) throw std::out_of_range("no value spelt '" + std::string(word) + "'");
  return *found;
}

/// One table of a job file ([sweep], [run], ...; the root has an empty name). An absent table
/// reads as an empty one, so every key takes its default. Holds references: `table` and `file`
/// must outlive the reader.
class TableReader {
 public:
  /// `table` may be null (absent); `name` is "" for the root; `file` is used in messages.
  TableReader(const toml::table* table, std::string name, std::string_view file);

  /// The job file's path as given to the parser (for messages and relative paths).
  std::string_view file() const { return m_file; }

  /// The keys of the table in TOML++'s order (sorted); empty for an absent table.
  std::vector<std::string_view> keys() const;

  /// The node of `key`, or null when the key is absent.
  const toml::node* find(std::string_view key) const;

  /// The sub-table `key` (absent -> a reader of an empty table). Throws when it is no table.
  TableReader table(std::string_view key) const;

  /// Throws for the first key not in `allowed` ("unknown key in [run]; did you mean 'seed'?",
  /// or the list of valid keys when none is near; at the root "unknown table [x]", or "key
  /// outside any table" for a plain key).
  void reject_unknown_keys(std::span<const std::string_view> allowed) const;

  /// Throws "NAME.KEY is required (EXPECTED)" at line 0 when `key` is absent.
  void require(std::string_view key, std::string_view expected) const;

  /// Integer in [min, max]; nullopt when absent. Throws for other types ("float where an integer
  /// is expected") and out of range, stating the range ("warmup must be >= 0 and <= 1000000").
  std::optional<std::int64_t> integer(std::string_view key, std::int64_t min,
                                      std::int64_t max) const;
  /// Integer or float in (0, max], finite; nullopt when absent ("width must be > 0 and <= 4").
  std::optional<double> positive_number(std::string_view key,
                                        double max = std::numeric_limits<double>::infinity()) const;
  /// Integer or float in [min, max] (NaN and infinities are out of range); nullopt when absent.
  /// Throws "KEY must be RANGE", e.g. with `range` "from 1/1024 (1 KiB) to 1048576 (1 TiB)".
  std::optional<double> number_in(std::string_view key, double min, double max,
                                  std::string_view range) const;
  /// Boolean; nullopt when absent.
  std::optional<bool> boolean(std::string_view key) const;
  /// Non-empty string; nullopt when absent.
  std::optional<std::string> string(std::string_view key) const;
  /// String equal to one of `choices`; nullopt when absent. Throws with a did-you-mean hint.
  std::optional<std::string> choice(std::string_view key,
                                    std::span<const std::string_view> choices) const;
  /// Non-empty list of distinct strings, each one of `choices`, in the order written; nullopt
  /// when absent. Throws at the list for a non-list or an empty list ("ops must not be an empty
  /// list; expected one or more of ..."), at the element for a non-string, a word not in
  /// `choices` (with a did-you-mean hint) or a word listed twice.
  std::optional<std::vector<std::string>> choice_list(
      std::string_view key, std::span<const std::string_view> choices) const;

  /// choice() over the texts of an enum's `values`, as that enum: nullopt when absent.
  template <class Enum, std::size_t N>
  std::optional<Enum> choice(std::string_view key, const std::array<Enum, N>& values,
                             std::string_view (*text)(Enum)) const {
    const std::array<std::string_view, N> words = words_of(values, text);
    const std::optional<std::string> word = choice(key, words);
    if (!word) return std::nullopt;
    return value_of(values, text, *word);
  }
  /// choice_list() over the texts of an enum's `values`, as that enum: nullopt when absent.
  template <class Enum, std::size_t N>
  std::optional<std::vector<Enum>> choice_list(std::string_view key,
                                               const std::array<Enum, N>& values,
                                               std::string_view (*text)(Enum)) const {
    const std::array<std::string_view, N> words = words_of(values, text);
    const std::optional<std::vector<std::string>> list = choice_list(key, words);
    if (!list) return std::nullopt;
    std::vector<Enum> chosen;
    for (const std::string& word : *list) chosen.push_back(value_of(values, text, word));
    return chosen;
  }

  /// Node-level forms of the readers above, for list elements; `key` names the list.
  std::int64_t as_integer(const toml::node& node, std::string_view key, std::int64_t min,
                          std::int64_t max) const;
  double as_positive_number(const toml::node& node, std::string_view key,
                            double max = std::numeric_limits<double>::infinity()) const;
  std::string as_string(const toml::node& node, std::string_view key) const;

  /// Throws JobError at `node`'s source position.
  [[noreturn]] void fail(const toml::node& node, std::string_view key,
                         const std::string& message) const;
  /// Throws "KEY: TYPE where EXPECTED is expected" at `node`.
  [[noreturn]] void fail_type(const toml::node& node, std::string_view key,
                              std::string_view expected) const;

 private:
  std::string unknown_key_message(std::string_view word, const toml::node& node,
                                  std::span<const std::string_view> allowed) const;

  const toml::table* m_table;
  std::string m_name;
  std::string_view m_file;
};

}  // namespace scaletune::job::detail
