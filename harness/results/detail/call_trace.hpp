#pragma once
// Where the HDF5 library was when a reading process died: every checked HDF5 call
// (h5_call.hpp) notes its function and object in a record that a parent process can read
// after the child that made the calls crashed or hung (child_probe.hpp). Off (one pointer test
// per call) unless a child probe turned it on.

#include <string>

namespace scaletune::results::detail {

struct H5Where;

/// The record, in memory shared with the parent process (an anonymous shared mapping made
/// before fork). Plain characters, always NUL-terminated, so the parent can read it whatever
/// state the child died in.
struct CallTrace {
  char call[64];     ///< the last HDF5 function called: "H5Dopen2"
  char object[448];  ///< where it acted, as H5Where says it: "/configs/r4 attribute status"
  int depth;         ///< HDF5 calls entered and not yet returned (0: outside the library)
};

/// Makes the calling process note its HDF5 calls in `trace` (nullptr: note nothing). Set in a
/// probe's child process only.
void trace_calls_into(CallTrace* trace);

/// Notes that the HDF5 call written `call_text` ("H5Fopen(path, ...)") starts, acting on `where`.
void trace_call_begin(const char* call_text, const H5Where& where);

/// Notes that HDF5 close function `function` ("H5Fclose") starts (handles close without an
/// H5Where: the trace names no object).
void trace_close_begin(const char* function);

/// Notes that the HDF5 call last begun returned.
void trace_call_end();

/// "H5Dopen2 at /configs/r4" ("H5Fclose" for a close) from a trace record ("" when no call was
/// noted).
std::string describe_last_call(const CallTrace& trace);

}  // namespace scaletune::results::detail
