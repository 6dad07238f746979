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

/// Every rank's processor_name(), index = rank in `comm` (one MPI_Allgather of
/// MPI_MAX_PROCESSOR_NAME bytes per rank). Collective over `comm`; throws MpiError.
std::vector<std::string> host_names(MPI_Comm comm);

}  // namespace scaletune::mpi
