#pragma once
// The subcommands of the scaletune executable (DESIGN.md "Command line").

namespace scaletune::cli {

/// Exit status: 0 success, 1 a run that failed, 2 bad usage or bad input.
enum ExitCode : int { kOk = 0, kRunFailed = 1, kBadInput = 2 };

/// Dispatches argv to a subcommand; returns the process exit status.
int main(int argc, char** argv);

}  // namespace scaletune::cli
