#include "harness/job/detail/text.hpp"

#include <array>
#include <cstdio>

namespace scaletune::job::detail {

std::string format_number(double value) {
  std::array<char, 32> buffer{};
  const int length = std::snprintf(buffer.data(), buffer.size(), "%g", value);
  return std::string(buffer.data(), static_cast<std::size_t>(length));
}

}  // namespace scaletune::job::detail
