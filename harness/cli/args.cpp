#include "args.hpp"

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

}  // namespace scaletune::cli
