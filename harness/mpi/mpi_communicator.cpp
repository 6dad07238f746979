#include "mpi_communicator.hpp"

#include <climits>

#include "harness/mpi/mpi_error.hpp"

namespace scaletune::mpi {

namespace {
// MPI counts are int: reduce spans longer than INT_MAX elements in pieces.
template <typename T>
void all_reduce_in_pieces(MPI_Comm comm, std::span<T> data, MPI_Datatype type) {
  constexpr std::size_t kMax = INT_MAX;
  for (std::size_t off = 0; off < data.size(); off += kMax) {
    const auto n = static_cast<int>(std::min(kMax, data.size() - off));
    SCALETUNE_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, data.data() + off, n, type, MPI_SUM, comm));
  }
}
}  // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm comm) : m_comm(comm) {
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(comm, &m_rank));
  SCALETUNE_MPI_CHECK(MPI_Comm_size(comm, &m_size));
}

void MpiCommunicator::all_reduce_sum(std::span<float> data) {
  all_reduce_in_pieces(m_comm, data, MPI_FLOAT);
}

void MpiCommunicator::all_reduce_sum(std::span<double> data) {
  all_reduce_in_pieces(m_comm, data, MPI_DOUBLE);
}

void MpiCommunicator::barrier() {
  SCALETUNE_MPI_CHECK(MPI_Barrier(m_comm));
}

}  // namespace scaletune::mpi
