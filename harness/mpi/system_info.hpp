#pragma once
// Describes the launch (hosts, ranks, devices, library versions) for /system.

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string>

#include "harness/results/result_types.hpp"

namespace scaletune::mpi {

/// The device a rank is bound to when it is not a host core (e.g. a CUDA device).
struct BoundDevice {
  std::string label;              ///< e.g. "cuda:1 NVIDIA H200"
  std::int64_t memory_bytes = 0;  ///< the device's memory, bytes
};

/// Collective over `world`: every rank reports its host, local rank, device and memory; rank 0
/// gets the whole table (other ranks get their own row only). `blas` names the host BLAS.
/// A rank with `device` reports it; host ranks stand for one device each: device
/// "host-core:<cpu>", memory_bytes the node's physical memory, which the node's ranks share.
/// Labels longer than 127 bytes are cut. The launcher and Slurm job are each rank's own view
/// (detect_launch in launch_info.hpp); rank 0's is the one written.
results::SystemInfo gather_system_info(MPI_Comm world, const std::string& blas,
                                       const std::optional<BoundDevice>& device = std::nullopt);

}  // namespace scaletune::mpi
