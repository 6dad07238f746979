#pragma once
// The one exception type of the result library (result_file.hpp).

#include <stdexcept>
#include <string>

namespace scaletune::results {

/// A result file could not be written or read: a failed HDF5 call, a missing file, a file
/// that is not a scaletune result file (schema_version 1), a missing attribute or dataset,
/// a shape that does not match, or a ConfigResult that cannot be stored as given.
/// what() names the file path, the object path inside it and what was expected.
class ResultError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Whether the OS error `os_error` (an errno) says the disk ran out of room or failed (ENOSPC,
/// EDQUOT, EFBIG, EIO): a command that meets it could not finish. Otherwise (a read-only or
/// missing folder, a directory in the way, no permission) the path it was given is at fault.
bool is_out_of_room(int os_error);

/// Putting a file on disk failed in the operating system (detail/file_image.hpp): what() as a
/// ResultError's, ending with the OS error's text, and its errno.
class WriteError : public ResultError {
 public:
  WriteError(const std::string& what, int os_error) : ResultError(what), m_os_error(os_error) {}
  /// The errno of the failed call.
  int os_error() const { return m_os_error; }
  /// is_out_of_room(os_error()).
  bool out_of_room() const { return is_out_of_room(m_os_error); }

 private:
  int m_os_error;
};

}  // namespace scaletune::results
