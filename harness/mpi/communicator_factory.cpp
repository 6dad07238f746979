#include "communicator_factory.hpp"

#include "harness/mpi/mpi_communicator.hpp"

namespace scaletune::mpi {

CommunicatorFactory mpi_communicator_factory() {
  return [](MPI_Comm comm) { return std::make_unique<MpiCommunicator>(comm); };
}

}  // namespace scaletune::mpi
