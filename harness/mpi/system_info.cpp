#include "system_info.hpp"

#include <sched.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <cstring>
#include <utility>
#include <vector>

#include "harness/mpi/host_names.hpp"
#include "harness/mpi/launch_info.hpp"
#include "harness/mpi/mpi_error.hpp"
#include "harness/mpi/node_placement.hpp"

namespace scaletune::mpi {

namespace {

constexpr int kTextBytes = 128;

// One rank's row in a fixed-size form MPI can gather.
struct RankRow {
  int local_rank = 0;
  std::int64_t memory_bytes = 0;
  std::array<char, kTextBytes> host{};
  std::array<char, kTextBytes> device{};
};

void copy_text(std::array<char, kTextBytes>& to, const std::string& from) {
  std::strncpy(to.data(), from.c_str(), to.size() - 1);
}

RankRow own_row(MPI_Comm world, const std::optional<BoundDevice>& device) {
  RankRow row;
  row.local_rank = node_placement(world).local_rank;
  row.memory_bytes =
      device ? device->memory_bytes
             : static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
  copy_text(row.host, processor_name());
  copy_text(row.device, device ? device->label : "host-core:" + std::to_string(sched_getcpu()));
  return row;
}

std::string mpi_library_version() {
  std::array<char, MPI_MAX_LIBRARY_VERSION_STRING> text{};
  int len = 0;
  SCALETUNE_MPI_CHECK(MPI_Get_library_version(text.data(), &len));
  std::string v(text.data(), static_cast<std::size_t>(len));
  if (const auto cut = v.find_first_of(",\n"); cut != std::string::npos) v.resize(cut);
  return v;
}

std::string kokkos_version() {
  constexpr int v = KOKKOS_VERSION;
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

/// Records this process's launch (detect_launch over the real environment) in `info`.
void record_launch(results::SystemInfo& info) {
  LaunchInfo launch = detect_launch();
  info.launcher = to_string(launch.launcher);
  info.slurm_job_id = std::move(launch.slurm_job_id);
  info.slurm_nodelist = std::move(launch.slurm_nodelist);
  info.slurm_step_id = std::move(launch.slurm_step_id);
}

}  // namespace

results::SystemInfo gather_system_info(MPI_Comm world, const std::string& blas,
                                       const std::optional<BoundDevice>& device) {
  results::SystemInfo info;
  int rank = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(world, &rank));
  SCALETUNE_MPI_CHECK(MPI_Comm_size(world, &info.world_size));
  const RankRow mine = own_row(world, device);
  std::vector<RankRow> rows(rank == 0 ? static_cast<std::size_t>(info.world_size) : 1);
  SCALETUNE_MPI_CHECK(MPI_Gather(&mine, sizeof(RankRow), MPI_BYTE, rows.data(), sizeof(RankRow),
                                 MPI_BYTE, 0, world));
  if (rank != 0) rows = {mine};
  for (std::size_t r = 0; r < rows.size(); ++r)
    info.ranks.push_back({rank == 0 ? static_cast<int>(r) : rank, rows[r].host.data(),
                          rows[r].local_rank, rows[r].device.data(), rows[r].memory_bytes});
  info.mpi_library = mpi_library_version();
  info.kokkos_version = kokkos_version();
  info.kokkos_backend = Kokkos::DefaultExecutionSpace::name();
  info.blas = blas;
  record_launch(info);
  return info;
}

}  // namespace scaletune::mpi
