#include "autotune/detail/osu_title.hpp"

#include <algorithm>
#include <vector>

#include "autotune/detail/log_text.hpp"

namespace scaletune::autotune::detail {

std::optional<OsuTitle> osu_title(std::string_view line) {
  const std::vector<std::string_view> words = split_words(line);
  if (words.size() < 4 || words[0] != "#" || words[1] != "OSU") return std::nullopt;
  const auto test_word = std::find(words.begin() + 3, words.end(), "Test");
  if (test_word == words.end()) return std::nullopt;
  OsuTitle title{.library = std::string(words[2]), .test = {}};
  for (auto word = words.begin() + 3; word != test_word; ++word)
    title.test += (title.test.empty() ? "" : " ") + std::string(*word);
  return title;
}

}  // namespace scaletune::autotune::detail
