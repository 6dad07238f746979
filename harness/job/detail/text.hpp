#pragma once
// One spelling of numbers and word lists for job-file messages, ids and plans.

#include <ranges>
#include <string>
#include <string_view>

namespace scaletune::job::detail {

/// `value` as printf's "%g" writes it: 0.5, 0.25, 1, 1e+06 (six significant digits).
std::string format_number(double value);

/// "1 rank", "2 ranks": `n` and the noun, plural (noun + "s") unless n is 1.
inline std::string counted(long n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

/// The elements of `words` (anything convertible to std::string_view) with `separator` between.
template <std::ranges::input_range Words>
std::string join(const Words& words, std::string_view separator) {
  std::string text;
  for (const auto& word : words) {
    if (!text.empty()) text += separator;
    text += std::string_view(word);
  }
  return text;
}

}  // namespace scaletune::job::detail
