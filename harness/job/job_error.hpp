#pragma once
// The one error type of job-file parsing and validation.

#include <stdexcept>
#include <string>

namespace scaletune::job {

/// A job file that cannot be used: a TOML syntax error, an unknown table or key, a wrong type,
/// a value out of range or a sweep that cannot be split. The CLI prints what() and exits 2.
///
/// what() reads "FILE:LINE:COLUMN: key 'KEY': MESSAGE", e.g.
/// `jobs/x.toml:7:1: key 'image_sise': unknown key in [workload]; did you mean 'image_size'?`;
/// the column is left out when it is 0 (unknown), the line and column when the line is 0
/// (a missing key has no line), and the key part when the key is empty (a syntax error).
class JobError : public std::runtime_error {
 public:
  /// `line` and `column` are 1-based, 0 when unknown; `key` may be empty.
  JobError(std::string file, int line, int column, std::string key, std::string message);

  const std::string& file() const noexcept { return m_file; }
  int line() const noexcept { return m_line; }                       ///< 1-based, 0 when unknown
  int column() const noexcept { return m_column; }                   ///< 1-based, 0 when unknown
  const std::string& key() const noexcept { return m_key; }          ///< empty when no key applies
  const std::string& message() const noexcept { return m_message; }  ///< without the location

 private:
  std::string m_file;
  int m_line;
  int m_column;
  std::string m_key;
  std::string m_message;
};

}  // namespace scaletune::job
