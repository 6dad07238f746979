#pragma once
// The one checked-call wrapper every HDF5 call of the result library goes through
// (STYLE.md "Errors"). HighFive wraps each C function in its own throwing function
// (include/highfive/bits/h5*_wrapper.hpp); here one template does it for all of them:
//
//   File file{SCALETUNE_H5(where, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT))};
//
// A failure throws ResultError naming the call, the file path and the object path.
// Outside it stay only the calls that must not throw: the wrapper's own error-stack handling
// (h5_call.cpp) and cleanup (H5?close in h5_handle.cpp, H5free_memory in h5_types.cpp).

#include <hdf5.h>

#include <string>
#include <type_traits>

#include "harness/results/detail/call_trace.hpp"

namespace scaletune::results::detail {

/// Where an HDF5 call acts: the file's path and the object's path inside it.
struct H5Where {
  std::string file;    ///< path of the .h5 file as the caller gave it
  std::string object;  ///< "/configs/r4", "/configs/r4 attribute status"; "" for the file

  /// The object `name` below this one: {"f.h5", "/"} -> {"f.h5", "/configs"}.
  H5Where child(const std::string& name) const;
  /// Attribute `name` of this object: "/configs/r4" -> "/configs/r4 attribute status".
  H5Where attribute(const std::string& name) const;
  /// Throws ResultError "<file>: <object>: <what>" ("<file>: <what>" for the file itself).
  [[noreturn]] void fail(const std::string& what) const;
  /// Throws MissingPartError "<file>: <object>: <what>" (a required part is absent).
  [[noreturn]] void missing(const std::string& what) const;
};

/// Turns off HDF5's printing of its error stack to stderr (H5Eset_auto2) for the calling
/// thread; later calls on that thread do nothing. The Debian build is thread-safe, where the
/// setting belongs to each thread's error stack.
void silence_hdf5_errors();

/// Throws ResultError "<file>: <object>: <function> failed: <HDF5's innermost message>",
/// `call_text` being the call as written ("H5Fopen(path, ...)"), and clears the error stack.
[[noreturn]] void throw_h5_error(const char* call_text, const H5Where& where);

/// True when `result` is HDF5's failure value (HDF5 reference manual, "Return values"):
/// nullptr for calls returning a pointer (H5Tget_member_name); negative for the signed herr_t,
/// hid_t, htri_t, ssize_t, hssize_t and int, and for the class enums (H5T_NO_CLASS = -1).
template <class T>
constexpr bool h5_failed(T result) {
  if constexpr (std::is_pointer_v<T>) {
    return result == nullptr;
  } else {
    static_assert(std::is_signed_v<T> || std::is_enum_v<T>,
                  "calls returning unsigned values have no failure value to check");
    return static_cast<long long>(result) < 0;
  }
}

/// Runs `call` (a closure around one HDF5 C call) and returns its result; throws
/// ResultError (throw_h5_error) when the result is HDF5's failure value. The call is noted in
/// the call trace of a probe's child process (call_trace.hpp).
template <class Call>
auto h5_call(const char* call_text, const H5Where& where, Call&& call) {
  silence_hdf5_errors();
  trace_call_begin(call_text, where);
  const auto result = call();
  trace_call_end();
  if (h5_failed(result)) throw_h5_error(call_text, where);
  return result;
}

}  // namespace scaletune::results::detail

/// Checked HDF5 call: SCALETUNE_H5(where, H5Xxx(args...)) returns H5Xxx's result or throws.
#define SCALETUNE_H5(where, ...) \
  ::scaletune::results::detail::h5_call(#__VA_ARGS__, (where), [&] { return __VA_ARGS__; })
