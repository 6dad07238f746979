#pragma once
// Open MPI settings scaletune changes from Open MPI's own defaults before MPI_Init, each only
// when the user has not set it (an OMPI_MCA_* variable in the environment always wins).

namespace scaletune::mpi {

/// Sets, unless already set: OMPI_MCA_coll_libnbc_iallreduce_algorithm=3 (Rabenseifner's
/// reduce-scatter and all-gather). Open MPI 4.1's default choice for MPI_Iallreduce, which the
/// overlapped gradient buckets use, takes 2.7 times as long as MPI_Allreduce for 6 MiB on 2
/// ranks of one node (5.9 ms against 2.2 ms); Rabenseifner's takes about as long (2.3 ms). Other
/// MPI libraries ignore the variable. Call before MPI_Init; not thread-safe (setenv).
void set_mca_defaults();

}  // namespace scaletune::mpi
