#pragma once
// How a configuration gets the communicator its collectives run on: the MPI backend here,
// NCCL where the executable was built with it (chosen by the command line, which links both).

#include <mpi.h>

#include <functional>
#include <memory>

#include "harness/core/communicator.hpp"

namespace scaletune::mpi {

/// Makes a communicator over `comm` (a configuration's sub-communicator, which outlives it).
/// Collective over `comm`. May throw (e.g. no CUDA device).
using CommunicatorFactory = std::function<std::unique_ptr<core::Communicator>(MPI_Comm comm)>;

/// The MPI backend's factory (MpiCommunicator, host memory).
CommunicatorFactory mpi_communicator_factory();

}  // namespace scaletune::mpi
