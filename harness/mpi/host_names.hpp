#pragma once
// Which host each rank runs on, by MPI_Get_processor_name: the one name /system/ranks records
// and sub-communicator placement groups ranks by.

#include <mpi.h>

#include <string>
#include <vector>

namespace scaletune::mpi {

/// This process's processor name (MPI_Get_processor_name; Open MPI gives the host name).
/// Throws MpiError when the call fails.
std::string processor_name();

/// Every rank's processor_name(), index = rank in `comm` (gathered_text of
/// MPI_MAX_PROCESSOR_NAME bytes per rank). Collective over `comm`; throws MpiError.
std::vector<std::string> host_names(MPI_Comm comm);

/// Every rank's `text`, index = rank in `comm`: one MPI_Allgather of `width` bytes per rank, so
/// each text is cut to its first `width` bytes (and at its first NUL). Collective over `comm`;
/// throws MpiError.
std::vector<std::string> gathered_text(MPI_Comm comm, const std::string& text, std::size_t width);

}  // namespace scaletune::mpi
