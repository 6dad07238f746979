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

/// A part the layout requires is absent (an attribute, a dataset, a group), or a configuration's
/// group cannot be opened: what a write interrupted by a version before whole-file writing left
/// (a link to a group that was never written). what() names the file and the part. The readers
/// skip a configuration with one and name it (ResultSet::incomplete).
class MissingPartError : public ResultError {
 public:
  using ResultError::ResultError;
};

/// Reading a file killed or stalled the reader in a child process that tried it first
/// (detail/child_probe.hpp): HDF5 1.10 trusts a file's metadata, and some single-bit flips send
/// it to an invalid address or round a loop for ever. what() names the file, how the reader died
/// and the last HDF5 call and object it was in. inside_hdf5() tells a damaged file (it died
/// inside an HDF5 call) from a defect of scaletune's own reading code (outside any).
class DamagedFileError : public ResultError {
 public:
  DamagedFileError(const std::string& what, bool inside_hdf5)
      : ResultError(what), m_inside_hdf5(inside_hdf5) {}
  /// Whether the reader died inside an HDF5 call.
  bool inside_hdf5() const { return m_inside_hdf5; }

 private:
  bool m_inside_hdf5;
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
