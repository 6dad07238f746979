#include "harness/job/slurm_time.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace scaletune::job {
namespace {

bool all_digits(std::string_view field) {
  return !field.empty() &&
         std::ranges::all_of(field, [](unsigned char c) { return std::isdigit(c) != 0; });
}

/// The ':'-separated fields of `text`, each digits, at most `max` of them.
bool digit_fields(std::string_view text, std::size_t max) {
  std::size_t count = 0;
  for (std::size_t begin = 0, end = 0; end != std::string_view::npos; begin = end + 1) {
    end = text.find(':', begin);
    if (!all_digits(text.substr(begin, end - begin)) || ++count > max) return false;
  }
  return true;
}

}  // namespace

bool is_slurm_time(std::string_view time) {
  if (time == "infinite" || time == "UNLIMITED") return true;
  const std::size_t dash = time.find('-');
  if (dash == std::string_view::npos) return digit_fields(time, 3);
  return all_digits(time.substr(0, dash)) && digit_fields(time.substr(dash + 1), 3);
}

bool is_slurm_word(std::string_view value) {
  return !value.empty() && std::ranges::all_of(value, [](unsigned char c) {
    return std::isalnum(c) != 0 ||
           std::string_view("._,:@+-").find(static_cast<char>(c)) != std::string_view::npos;
  });
}

}  // namespace scaletune::job
