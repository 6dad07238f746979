#pragma once
// Reading a damaged file without dying of it. HDF5 1.10 follows the addresses and sizes in a
// file's metadata; a flipped bit there can make H5Dopen2 or the global-heap read (H5HG_read)
// touch an invalid address or loop for ever, killing the reader with no error to catch (h5dump
// and h5py die on the same files). So a reader first reads the file in a forked child process:
// a child that crashes or hangs is reported as a damaged file, naming the HDF5 call and object
// it was in, and the parent never reads it. Cost: the file is read twice.

#include <chrono>
#include <functional>
#include <string>

namespace scaletune::results::detail {

/// The environment variable that sets probe_deadline for every file (seconds, > 0): for slow
/// file systems, and for fuzzing (tests/fuzz) under a shorter time limit.
inline constexpr const char* kDeadlineVariable = "SCALETUNE_READ_DEADLINE_S";

/// How long a probe of the file `path` may take: $SCALETUNE_READ_DEADLINE_S seconds where set,
/// else 30 s plus 1 s per 8 MiB of file (a healthy read goes at hundreds of MiB/s). Throws
/// ResultError naming the variable when its value is not a number in (0, 1e6].
std::chrono::milliseconds probe_deadline(const std::string& path);

/// Runs `read` in a forked child process (its standard output and error to /dev/null, its crash
/// signals at their default action, its HDF5 calls traced: call_trace.hpp) and waits for it at
/// most `deadline`. Returns when the child
/// finished, whether `read` returned or threw: the caller then reads in its own process, where
/// the same error (if any) is thrown. Throws DamagedFileError naming `path`, the signal or exit
/// status and the last HDF5 call and object when the child died, and the deadline when it did
/// not finish (it is killed); ResultError when no child process can be made (fork fails).
/// The child dies with the calling process (PR_SET_PDEATHSIG); in it, probe_in_child returns at
/// once (no nested probes). Call it from a thread that holds no lock the reader needs (the child
/// has this thread only).
void probe_in_child(const std::string& path, const std::function<void()>& read,
                    std::chrono::milliseconds deadline);

}  // namespace scaletune::results::detail
