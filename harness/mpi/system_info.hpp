#pragma once
// Describes the launch (hosts, ranks, devices, library versions) for /system.

#include <mpi.h>

#include <string>

#include "harness/results/result_types.hpp"

namespace scaletune::mpi {

/// Collective over `world`: every rank reports its host, local rank, device and memory; rank 0
/// gets the whole table (other ranks get their own row only). `blas` names the host BLAS.
/// Host ranks stand for one device each: device "host-core:<cpu>", memory_bytes the node's
/// physical memory, which the node's ranks share.
results::SystemInfo gather_system_info(MPI_Comm world, const std::string& blas);

}  // namespace scaletune::mpi
