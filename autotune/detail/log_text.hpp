#pragma once
// Line splitting, launcher-prefix stripping, word splitting and checked number reading for
// benchmark logs (nccl-tests, OSU), with errors that name the file and line.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace scaletune::autotune::detail {

/// Where a piece of log text came from: file path and 1-based line number.
struct LogPlace {
  std::string_view path;
  int line = 0;

  /// "path:line".
  std::string str() const;
  /// Throws std::invalid_argument "path:line: what".
  [[noreturn]] void fail(const std::string& what) const;
};

/// One line of a log with its launcher prefix removed, and its 1-based number.
struct LogLine {
  std::string_view text;
  int number = 0;
};

/// The lines of `text` (split at '\n', a trailing '\r' dropped), each with an `srun -l` prefix
/// ("12: ") or an `mpirun --tag-output` prefix ("[1,0]<stdout>:", "<stderr>") removed.
/// The views point into `text`.
std::vector<LogLine> log_lines(std::string_view text);

/// `line` without a leading `srun -l` or `mpirun --tag-output` prefix; unchanged when it has none.
std::string_view strip_launcher_prefix(std::string_view line);

/// The whitespace-separated words of `line`.
std::vector<std::string_view> split_words(std::string_view line);

/// True when `word` is one or more decimal digits (a table row starts with one).
bool is_unsigned_integer(std::string_view word);

/// `word` as a 64-bit integer; throws at `place` naming `column` when it is not one entirely.
std::int64_t read_integer(std::string_view word, std::string_view column, const LogPlace& place);

/// `word` as a finite double ("12.5", "2e-07"); throws at `place` naming `column` otherwise.
double read_number(std::string_view word, std::string_view column, const LogPlace& place);

}  // namespace scaletune::autotune::detail
