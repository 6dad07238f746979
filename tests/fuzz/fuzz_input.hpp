#pragma once
// What every fuzz target shares: the input as text, and a check of what a parser promises.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace scaletune::fuzz {

/// The `size` bytes at `data` as a string (any bytes, NUL included).
inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// Aborts, naming `promise`, when `holds` is false: a parser that accepted its input returned
/// what its documentation says it never returns, a finding as a crash is.
inline void expect(bool holds, const char* promise) {
  if (holds) return;
  std::fprintf(stderr, "fuzz: broken promise: %s\n", promise);
  std::abort();
}

/// Aborts unless the message of a bad-input error names the input `path` first ("path:line:
/// what" or "path: what"): an error must say which file is wrong.
inline void expect_names(const char* message, const std::string& path) {
  expect(std::string(message).rfind(path + ":", 0) == 0, "the error names the file first");
}

/// Whether `x` is a finite number > 0.
inline bool finite_positive(double x) {
  return std::isfinite(x) && x > 0;
}

}  // namespace scaletune::fuzz
