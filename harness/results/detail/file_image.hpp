#pragma once
// Result files written whole: writers hold the file in memory (file_access.hpp: HDF5's core
// driver without a backing store, so no HDF5 call writes to disk) and after each change put its
// image on disk with plain POSIX calls into a temporary file renamed over the result file
// (rename(2) is atomic within a file system). A full disk, a quota or an I/O error then fails one
// write(2) or fsync(2) with a clear errno, before anything replaced the file: the file on disk is
// always the last complete image, never a half-written one, and a kill at any moment leaves
// it whole (and at most a stale temporary beside it).

#include <string>

#include "harness/results/detail/h5_handle.hpp"

namespace scaletune::results::detail {

/// The temporary file replace_with_image writes before renaming it over `path`.
std::string image_temporary(const std::string& path);

/// Writes the image of the in-memory file `file` (create_memory_file, open_in_memory) to
/// `path`, replacing it atomically: flushed by HDF5 into its memory image, written to
/// image_temporary(path), fsync'd, renamed over `path`, and the directory fsync'd. Where `path`
/// is a symbolic link the file it leads to is replaced (the link stays); the new file keeps the
/// old one's permission bits (not its owner). Throws
/// ResultError "<path>: cannot write ...: <the OS error>" (errno: "No space left on device",
/// "File too large", ...) when a step fails; then the temporary is removed and `path` keeps
/// its previous content (a WriteError, with the errno). The file's missing parent directories
/// are created first.
void replace_with_image(hid_t file, const std::string& path);

}  // namespace scaletune::results::detail
