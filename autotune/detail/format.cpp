#include "autotune/detail/format.hpp"

#include <cmath>
#include <cstdio>

namespace scaletune::autotune::detail {

namespace {

constexpr const char* kMissing = "-";

std::string printf_double(const char* format, int precision, double x) {
  std::string text(static_cast<std::size_t>(std::snprintf(nullptr, 0, format, precision, x)), '\0');
  std::snprintf(text.data(), text.size() + 1, format, precision, x);
  return text;
}

}  // namespace

std::string fixed(double x, int decimals) {
  return std::isnan(x) ? kMissing : printf_double("%.*f", decimals, x);
}

std::string grouped(double x, int decimals) {
  if (std::isnan(x)) return kMissing;
  std::string digits = fixed(std::fabs(x), decimals);
  const std::size_t point = digits.find('.');
  for (auto i = static_cast<long>(point == std::string::npos ? digits.size() : point) - 3; i > 0;
       i -= 3)
    digits.insert(static_cast<std::size_t>(i), ",");
  return (std::signbit(x) && digits.find_first_not_of("0.,") != std::string::npos ? "-" : "") +
         digits;
}

std::string percent(double fraction) {
  return fixed(100.0 * fraction, 1);
}

std::string significant(double x, int digits) {
  return std::isnan(x) ? kMissing : printf_double("%.*g", digits, x);
}

std::string counted(std::size_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

}  // namespace scaletune::autotune::detail
