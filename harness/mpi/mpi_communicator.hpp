#pragma once
// core::Communicator over an MPI communicator (host memory only: Open MPI here is not
// CUDA-aware, TOOLCHAIN.md).

#include <mpi.h>

#include "harness/core/communicator.hpp"

namespace scaletune::mpi {

/// Wraps an MPI communicator it does not own. Errors throw MpiError.
class MpiCommunicator final : public core::Communicator {
 public:
  explicit MpiCommunicator(MPI_Comm comm);
  int rank() const override { return m_rank; }
  int size() const override { return m_size; }
  void all_reduce_sum(std::span<float> data) override;
  void all_reduce_sum(std::span<double> data) override;
  void barrier() override;
  std::string backend() const override { return "mpi"; }
  MPI_Comm native() const { return m_comm; }

 private:
  MPI_Comm m_comm;
  int m_rank = 0;
  int m_size = 1;
};

}  // namespace scaletune::mpi
