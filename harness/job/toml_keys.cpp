#include "harness/job/toml_keys.hpp"

#include <algorithm>
#include <cctype>

#include <toml++/toml.h>

namespace scaletune::job {
namespace {

/// Line `number` (1-based) of `text`, without its newline; empty past the end.
std::string_view line_of(std::string_view text, std::size_t number) {
  std::size_t begin = 0;
  for (std::size_t n = 1; n < number; ++n) {
    const std::size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) return {};
    begin = end + 1;
  }
  return text.substr(begin, text.find('\n', begin) - begin);
}

/// Offset of the first character of `stops` in `line` outside TOML quotes ("..." with
/// backslash escapes, '...'), npos when there is none.
std::size_t find_unquoted(std::string_view line, std::string_view stops) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote == '"' && c == '\\')
      ++i;
    else if (quote != 0 && c == quote)
      quote = 0;
    else if (quote == 0 && (c == '"' || c == '\''))
      quote = c;
    else if (quote == 0 && stops.find(c) != std::string_view::npos)
      return i;
  }
  return std::string_view::npos;
}

bool is_table_header(std::string_view line) {
  const std::size_t first = line.find_first_not_of(" \t");
  return first != std::string_view::npos && line[first] == '[';
}

/// The nearest table header line before line `number`, "" when there is none.
std::string_view enclosing_header(std::string_view text, std::size_t number) {
  for (std::size_t n = number; n-- > 1;)
    if (is_table_header(line_of(text, n))) return line_of(text, n);
  return {};
}

/// The keys from the root to the one key-value or table that `doc` defines.
std::vector<std::string> only_path(const toml::table& doc) {
  std::vector<std::string> path;
  const toml::table* table = &doc;
  while (table != nullptr && table->size() == 1) {
    const auto only = table->cbegin();  // its pair lives in the iterator: keep it
    path.emplace_back(only->first.str());
    const toml::node& node = only->second;
    const toml::array* array = node.as_array();
    table = array != nullptr && array->size() == 1 ? array->front().as_table() : node.as_table();
  }
  return path;
}

/// The full key that line `number` of `text` defines; empty for a line holding an inline table
/// (the repeated key may be inside) or one that is not understood.
std::vector<std::string> defined_key(std::string_view text, std::size_t number) {
  const std::string_view line = line_of(text, number);
  std::string doc(line);
  if (!is_table_header(line)) {
    const std::size_t equals = find_unquoted(line, "=");
    if (equals == std::string_view::npos ||
        find_unquoted(line.substr(equals + 1), "{") != std::string_view::npos)
      return {};
    doc = std::string(enclosing_header(text, number)) + "\n" + std::string(line.substr(0, equals)) +
          " = 0\n";
  }
  try {
    return only_path(toml::parse(doc));
  } catch (const toml::parse_error&) {
    return {};
  }
}

/// The last '...'-quoted word of toml++'s "cannot redefine existing integer 'iterations'" when
/// it is a bare key (toml++ garbles quoted ones); empty otherwise.
std::string described_key(std::string_view description) {
  const std::size_t close = description.rfind('\'');
  if (close == std::string_view::npos || close == 0) return {};
  const std::size_t open = description.rfind('\'', close - 1);
  if (open == std::string_view::npos) return {};
  const std::string_view key = description.substr(open + 1, close - open - 1);
  return is_bare_key(key) ? std::string(key) : std::string();
}

}  // namespace

bool is_bare_key(std::string_view key) {
  return !key.empty() && std::ranges::all_of(key, [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '_' || c == '-';
  });
}

std::string toml_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

std::optional<Redefinition> redefinition(std::string_view text, std::string_view description,
                                         std::size_t line, std::size_t column) {
  if (description.find("cannot redefine existing") == std::string_view::npos) return std::nullopt;
  Redefinition r{defined_key(text, line), line, column};
  if (!r.key.empty()) {
    r.column = line_of(text, line).find_first_not_of(" \t") + 1;
  } else if (std::string key = described_key(description); !key.empty()) {
    r.key = {std::move(key)};
  }
  return r;
}

}  // namespace scaletune::job
