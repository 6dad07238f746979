#pragma once
// What the sanitizer build (SCALETUNE_SANITIZE) changes for tests: AddressSanitizer replaces
// glibc's allocator. Its operator new never throws std::bad_alloc (an impossible size aborts the
// process) and glibc's mallinfo2 does not see its heap, so tests of those skip there.

#include <gtest/gtest.h>

#if defined(__SANITIZE_ADDRESS__)  // GCC
#define SCALETUNE_ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)  // clang
#define SCALETUNE_ASAN_BUILD 1
#endif
#endif

namespace scaletune::testing_support {

#ifdef SCALETUNE_ASAN_BUILD
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace scaletune::testing_support

/// Skips the test in an AddressSanitizer build, with the reason (a GTEST_SKIP: use it in the
/// test body).
#define SCALETUNE_SKIP_UNDER_ASAN(reason)              \
  if (::scaletune::testing_support::kAddressSanitizer) \
  GTEST_SKIP() << "AddressSanitizer build: " << (reason)
