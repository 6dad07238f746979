#pragma once
// Reading a damaged file: a size or count read from it can be absurd (a flipped bit in a
// dataspace), and allocating for it throws std::bad_alloc or std::length_error far from any
// file name; some flips crash or hang the HDF5 library itself (child_probe.hpp). The readers
// run inside read_guarded, which reads in a child process first and names the file instead.

#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "harness/results/detail/child_probe.hpp"
#include "harness/results/result_error.hpp"

namespace scaletune::results::detail {

/// Throws ResultError "<path>: a size read from the file cannot be allocated (<what>); the file
/// is damaged or not a scaletune file".
[[noreturn]] inline void throw_damaged(const std::string& path, const std::exception& e) {
  throw ResultError(path + ": a size read from the file cannot be allocated (" + e.what() +
                    "); the file is damaged or not a scaletune file");
}

/// Returns read() on `path`, after it ran once in a child process (probe_in_child, which throws
/// DamagedFileError when that child crashed or hung); std::bad_alloc and std::length_error from
/// it become throw_damaged's error.
template <class Read>
auto read_guarded(const std::string& path, Read&& read) {
  probe_in_child(
      path, [&] { (void)read(); }, probe_deadline(path));
  try {
    return read();
  } catch (const std::bad_alloc& e) {
    throw_damaged(path, e);
  } catch (const std::length_error& e) {
    throw_damaged(path, e);
  }
}

}  // namespace scaletune::results::detail
