#include "harness/cli/args.hpp"

#include <filesystem>
#include <set>

namespace scaletune::cli {

namespace {
std::string known_options(const std::set<std::string>& valued, const std::set<std::string>& flags) {
  std::string text;
  for (const auto& v : valued) text += (text.empty() ? "" : ", ") + v + " VALUE";
  for (const auto& f : flags) text += (text.empty() ? "" : ", ") + f;
  return text.empty() ? "none" : text;
}
}  // namespace

std::string Args::option(const std::string& name, const std::string& fallback) const {
  const auto it = options.find(name);
  return it == options.end() ? fallback : it->second;
}

Args parse_args(int argc, char** argv, int first, const std::string& command,
                const std::set<std::string>& valued, const std::set<std::string>& flags) {
  Args args;
  for (int i = first; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.size() < 2 || a.rfind("--", 0) != 0) {
      args.positional.push_back(a);
    } else if (args.flags.contains(a) || args.options.contains(a)) {
      throw UsageError(a + " is given twice; give it once");
    } else if (flags.contains(a)) {
      args.flags.insert(a);
    } else if (valued.contains(a)) {
      if (i + 1 >= argc) throw UsageError(a + " needs a value");
      args.options[a] = argv[++i];
    } else {
      throw UsageError("unknown option '" + a + "' for " + command +
                       " (valid: " + known_options(valued, flags) + ")");
    }
  }
  return args;
}

void expect_positionals(const Args& args, std::size_t min, std::size_t max,
                        const std::string& usage) {
  if (args.positional.size() < min || args.positional.size() > max)
    throw UsageError("usage: " + usage);
}

namespace {

int parse_count(const std::string& option, const std::string& text, const char* what) {
  const bool digits_only = !text.empty() && text.size() <= 7 &&
                           text.find_first_not_of("0123456789") == std::string::npos;
  if (digits_only) {
    const long n = std::stol(text);
    if (n >= 1 && n <= kMaxRankCount) return static_cast<int>(n);
  }
  throw UsageError(option + " takes a " + what + " from 1 to " + std::to_string(kMaxRankCount) +
                   ", got '" + text + "'");
}

}  // namespace

int parse_rank_count(const std::string& option, const std::string& text) {
  return parse_count(option, text, "rank count");
}

int parse_node_count(const std::string& option, const std::string& text) {
  return parse_count(option, text, "node count");
}

int parse_sequence_length(const std::string& option, const std::string& text) {
  return parse_count(option, text, "sequence length");
}

void expect_h5_path(const std::string& option, const std::string& path) {
  const std::string name = path.substr(path.find_last_of('/') + 1);
  if (name.size() < 4 || !name.ends_with(".h5"))
    throw UsageError(option + " takes a result file name ending in .h5, got '" + path + "'");
}

std::vector<std::string> comma_list(const std::string& list) {
  std::vector<std::string> out;
  for (std::size_t begin = 0, end = 0; end != std::string::npos && !list.empty(); begin = end + 1) {
    end = list.find(',', begin);
    out.push_back(list.substr(begin, end - begin));
  }
  return out;
}

std::vector<std::string> item_list(const std::string& option, const std::string& list,
                                   const std::string& form) {
  const std::vector<std::string> items = comma_list(list);
  const std::string usage = "; give " + option + " " + form;
  if (items.empty()) throw UsageError(option + " is empty" + usage);
  for (const std::string& item : items)
    if (item.empty()) throw UsageError(option + " '" + list + "' has an empty item" + usage);
  return items;
}

std::vector<std::string> file_list(const std::string& option, const std::string& list) {
  const std::vector<std::string> files = item_list(option, list, "FILE.h5[,FILE.h5...]");
  expect_each_once(files, "its runs would count twice");
  return files;
}

void expect_each_once(const std::vector<std::string>& paths, const std::string& why) {
  std::set<std::filesystem::path> seen;
  for (const std::string& path : paths)
    if (!seen.insert(std::filesystem::weakly_canonical(path)).second)
      throw UsageError(path + " is given twice; give each file once (" + why + ")");
}

}  // namespace scaletune::cli
