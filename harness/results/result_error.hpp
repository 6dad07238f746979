#pragma once
// The one exception type of the result library (result_file.hpp).

#include <stdexcept>

namespace scaletune::results {

/// A result file could not be written or read: a failed HDF5 call, a missing file, a file
/// that is not a scaletune result file (schema_version 1), a missing attribute or dataset,
/// a shape that does not match, or a ConfigResult that cannot be stored as given.
/// what() names the file path, the object path inside it and what was expected.
class ResultError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace scaletune::results
