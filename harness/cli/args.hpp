#pragma once
// A small command-line parser for the subcommands: positionals, flags and --key VALUE options.

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace scaletune::cli {

/// Bad command-line usage (exit status 2). what() says what was wrong and what would be right.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parsed arguments of one subcommand.
struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;  ///< "--out" -> "x.h5"
  std::set<std::string> flags;                 ///< "--resume"

  /// The option's value, or `fallback` when it was not given.
  std::string option(const std::string& name, const std::string& fallback = "") const;
};

/// Parses argv[first..argc) for `command`. `valued` are options that take a value, `flags`
/// those that do not. Throws UsageError for an unknown option or a missing value, naming the
/// valid options.
Args parse_args(int argc, char** argv, int first, const std::string& command,
                const std::set<std::string>& valued, const std::set<std::string>& flags);

/// Throws UsageError unless the number of positionals is in [min, max].
void expect_positionals(const Args& args, std::size_t min, std::size_t max,
                        const std::string& usage);

/// The largest rank count a command line accepts (as the job files' `ranks`).
inline constexpr int kMaxRankCount = 1 << 20;

/// `text` as a rank count in [1, kMaxRankCount]. Throws UsageError "<option> takes a rank count
/// from 1 to 1048576, got '<text>'" for anything else (a sign, a fraction, trailing text).
int parse_rank_count(const std::string& option, const std::string& text);
/// `text` as a node count in [1, kMaxRankCount]; UsageError "<option> takes a node count ..."
/// as parse_rank_count.
int parse_node_count(const std::string& option, const std::string& text);
/// `text` as a sequence length (tokens) in [1, kMaxRankCount]; UsageError as parse_rank_count.
int parse_sequence_length(const std::string& option, const std::string& text);

/// The items of a comma-separated option value ("a.h5,b.h5" -> {"a.h5", "b.h5"}); none for "".
std::vector<std::string> comma_list(const std::string& list);

/// The items of option `option`'s comma-separated value `list` (comma_list). Throws UsageError
/// naming the option and the expected `form` ("TYPE[,TYPE...]") when the list is empty or has an
/// empty item.
std::vector<std::string> item_list(const std::string& option, const std::string& list,
                                   const std::string& form);

/// The files of option `option`'s comma-separated value `list` (item_list). Throws UsageError
/// naming the option when the list is empty or has an empty item (",b.h5", "a.h5,,b.h5"), and
/// when it names a file twice (expect_each_once).
std::vector<std::string> file_list(const std::string& option, const std::string& list);

/// Throws UsageError "<path> is given twice; give each file once (<why>)" when two of `paths`
/// name the same file (after weakly_canonical: "a.h5" and "./a.h5" are one).
void expect_each_once(const std::vector<std::string>& paths, const std::string& why);

/// Throws UsageError naming `option` unless `path` names a result file: it ends in ".h5" and
/// has a name before it ("x.h5", "dir/x.h5"; not ".h5" or "dir/.h5").
void expect_h5_path(const std::string& option, const std::string& path);

}  // namespace scaletune::cli
