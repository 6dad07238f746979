#include "device_binding.hpp"

#include <charconv>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "harness/mpi/mpi_error.hpp"
#include "harness/mpi/node_placement.hpp"

namespace scaletune::mpi {

namespace {

/// The value of environment variable `name` as a non-negative integer; nullopt when unset.
std::optional<int> env_rank(const char* name,
                            const std::function<const char*(const char*)>& getenv) {
  const char* text = getenv(name);
  if (text == nullptr) return std::nullopt;
  const std::string_view value(text);
  int rank = -1;
  const auto [end, err] = std::from_chars(value.data(), value.data() + value.size(), rank);
  if (err != std::errc() || end != value.data() + value.size() || rank < 0) {
    throw std::invalid_argument(std::string("environment variable ") + name + "=\"" + text +
                                "\" is not a local rank; expected a non-negative integer");
  }
  return rank;
}

}  // namespace

int local_rank(MPI_Comm world) {
  std::optional<int> split;
  try {
    split = node_placement(world).local_rank;
  } catch (const MpiError&) {
    // Fall back on the launcher's variables (local_rank_from).
  }
  return local_rank_from(split, [](const char* name) { return std::getenv(name); });
}

int local_rank_from(std::optional<int> shared_split_rank,
                    const std::function<const char*(const char*)>& getenv) {
  if (shared_split_rank) return *shared_split_rank;
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"}) {
    if (const auto rank = env_rank(name, getenv)) return *rank;
  }
  return 0;
}

int device_for_rank(int local_rank, int visible_devices) {
  if (visible_devices < 1) {
    throw std::invalid_argument(
        "device_for_rank: " + std::to_string(visible_devices) +
        " visible CUDA devices; need at least 1 (is CUDA_VISIBLE_DEVICES empty or wrong?)");
  }
  if (local_rank < 0) {
    throw std::invalid_argument("device_for_rank: local rank " + std::to_string(local_rank) +
                                " is negative; expected >= 0");
  }
  return local_rank % visible_devices;
}

}  // namespace scaletune::mpi
