#include "harness/mpi/mca_defaults.hpp"

#include <cstdlib>

namespace scaletune::mpi {

void set_mca_defaults() {
  setenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm", "3", 0);  // 0: keep the user's value
}

}  // namespace scaletune::mpi
