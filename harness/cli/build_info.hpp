#pragma once
// Facts about this binary, written at build time (cmake/WriteBuildInfo.cmake).

namespace scaletune::cli {
/// Semantic version of scaletune, e.g. "0.1.0".
const char* scaletune_version();
/// Short git sha of the source tree, with "-dirty" when it had uncommitted changes.
const char* git_sha();
/// CMake build type, e.g. "Release".
const char* build_type();
}  // namespace scaletune::cli
