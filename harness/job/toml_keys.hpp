#pragma once
// TOML keys in error messages: bare or quoted spelling (TOML v1.0.0 "Keys"), and the key a
// document defines twice, read from its source line because toml++ 3.3 garbles quoted keys in
// its "cannot redefine existing" message ('"NVNVIDIA A30" ' for "NVIDIA A30").

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scaletune::job {

/// True for a TOML bare key: one or more of A-Z a-z 0-9 _ -.
bool is_bare_key(std::string_view key);

/// `text` in TOML basic-string quotes, with `"` and `\` escaped.
std::string toml_quoted(std::string_view text);

/// A key defined a second time.
struct Redefinition {
  /// The full key from the root, e.g. {"run", "iterations"} or {"per_device_hour", "NVIDIA A30"}
  /// (a table header's key for a repeated table); empty when neither the line nor the parser's
  /// message tells it.
  std::vector<std::string> key;
  std::size_t line = 0;    ///< 1-based line of the second definition
  std::size_t column = 0;  ///< 1-based: the key's first character, else the parser's column
};

/// The redefinition a toml++ parse error of document `text` reports (its description, line and
/// column, 1-based); std::nullopt when the description is not toml++'s "cannot redefine
/// existing ...". The key comes from the line: a table header's key, or a key-value pair's (up to
/// its '=') under the nearest header before it; for a line it cannot read (an inline table), the
/// bare key quoted in the description, else none.
std::optional<Redefinition> redefinition(std::string_view text, std::string_view description,
                                         std::size_t line, std::size_t column);

}  // namespace scaletune::job
