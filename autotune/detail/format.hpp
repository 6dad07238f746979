#pragma once
// Number and count formatting shared by the recommendation sentence and the reports.

#include <cstddef>
#include <string>
#include <string_view>

namespace scaletune::autotune::detail {

/// `x` rounded to `decimals` places with thousands separators: 1234.5 -> "1,235" (decimals 0),
/// "1,234.50" (decimals 2). NaN -> "-".
std::string grouped(double x, int decimals = 0);

/// `x` in fixed notation with `decimals` places and no separators: 0.8234 -> "0.82".
/// NaN -> "-".
std::string fixed(double x, int decimals);

/// A fraction as a percentage with one decimal: 0.1234 -> "12.3". NaN -> "-".
std::string percent(double fraction);

/// `x` with `digits` significant digits (printf %g): 0.00123456 -> "0.00123". NaN -> "-".
std::string significant(double x, int digits = 3);

/// `n` and the noun, plural (noun + "s") unless n is 1: (1, "rank") -> "1 rank",
/// (0, "rank") -> "0 ranks", (3, "ok configuration") -> "3 ok configurations".
std::string counted(std::size_t n, std::string_view noun);

}  // namespace scaletune::autotune::detail
