#include "autotune/detail/markdown_text.hpp"

#include <algorithm>
#include <string_view>

namespace scaletune::autotune::detail {
namespace {

bool is_control(char ch) {
  const auto c = static_cast<unsigned char>(ch);
  return c < 0x20 || c == 0x7f;
}

}  // namespace

std::string markdown_text(std::string_view text) {
  constexpr std::string_view kEscaped = "\\`[<|";
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    if (kEscaped.find(ch) != std::string_view::npos) out += '\\';
    out += is_control(ch) ? ' ' : ch;
  }
  return out;
}

std::string markdown_code(std::string_view text) {
  std::string body;
  std::size_t run = 0, longest = 0;
  for (char ch : text) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    body += is_control(ch) ? ' ' : ch;
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " + body + " " : body) + fence;
}

}  // namespace scaletune::autotune::detail
