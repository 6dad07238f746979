#pragma once
// Which CUDA device a rank drives: its local rank (its index among the ranks on its node)
// modulo the devices it can see. No CUDA here: callers pass the runtime's device count.

#include <mpi.h>

#include <functional>
#include <optional>

namespace scaletune::mpi {

/// This rank's local rank: its rank among the ranks of `world` on the same node
/// (node_placement, MPI_Comm_split_type with MPI_COMM_TYPE_SHARED). When that split fails
/// (an MpiError, with MPI_ERRORS_RETURN set on `world`), the launcher's variables as
/// local_rank_from reads them. Collective over `world`. Throws as local_rank_from.
int local_rank(MPI_Comm world);

/// The local rank from what is known, first that wins: `shared_split_rank` (the rank in the
/// shared-memory split), then the environment variable OMPI_COMM_WORLD_LOCAL_RANK (Open MPI's
/// mpirun), then SLURM_LOCALID (srun), then 0. `getenv` looks a variable up (std::getenv in
/// production) and returns nullptr when it is unset. Throws std::invalid_argument naming the
/// variable and its value when a set variable is not a non-negative integer.
int local_rank_from(std::optional<int> shared_split_rank,
                    const std::function<const char*(const char*)>& getenv);

/// The device index, in [0, visible_devices), for a rank with `local_rank`:
/// local_rank % visible_devices, so ranks on a node spread round-robin over its devices.
/// `visible_devices` is the CUDA runtime's device count, which already honours
/// CUDA_VISIBLE_DEVICES (a launcher that gives each rank one visible device makes every rank
/// use its device 0). Throws std::invalid_argument when visible_devices < 1 or local_rank < 0.
int device_for_rank(int local_rank, int visible_devices);

}  // namespace scaletune::mpi
