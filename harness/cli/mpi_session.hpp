#pragma once
// MPI for the lifetime of a command that runs under mpirun/srun (run, profile); finalised on
// every path out.

#include <mpi.h>

#include <stdexcept>

#include "harness/mpi/mca_defaults.hpp"

namespace scaletune::cli {

/// Initialises MPI (after mpi::set_mca_defaults) asking for MPI_THREAD_MULTIPLE, which rank 0's
/// failure watch needs (mpi::FailureNotices; a library that provides less leaves it off), and
/// finalises it on destruction. Errors come
/// back as codes, so SCALETUNE_MPI_CHECK can throw them with the call's name (MPI's default
/// handler would abort the launch instead). Throws std::runtime_error when MPI_Init fails.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv) {
    mpi::set_mca_defaults();
    int provided = MPI_THREAD_SINGLE;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
      throw std::runtime_error("MPI_Init_thread failed");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

}  // namespace scaletune::cli
