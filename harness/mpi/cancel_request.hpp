#pragma once
// A sweep asked to stop by a signal: SIGTERM (what scancel, a Slurm time limit and mpirun send
// first, SIGKILL following after Slurm's KillWait, 30 s by default, or Open MPI's
// odls_base_sigkill_timeout, 1 s) or SIGINT (Ctrl-C). The handler only notes the signal; the
// sweep looks at it between iterations (Deadline::check in outcome.hpp), records the running
// configuration as `cancelled` and stops (sweep_runner.hpp). A second signal ends the process
// at once (the default action).

#include <string>

namespace scaletune::mpi {

/// Installs the handlers of SIGTERM and SIGINT for this process (sigaction, SA_RESTART): the
/// first signal is noted and both get their default action back, so a second one of either
/// ends the process. Throws std::runtime_error when sigaction fails.
void install_cancel_handlers();

/// The signal that asked this process to stop (SIGTERM or SIGINT), 0 while none did.
int cancel_signal();

/// "SIGTERM", "SIGINT", "signal N".
std::string signal_name(int signal);

}  // namespace scaletune::mpi
