#include "status_agreement.hpp"

#include <climits>
#include <vector>

#include "harness/mpi/mpi_error.hpp"

namespace scaletune::mpi {

using results::Status;

int severity(Status s) {
  switch (s) {
    case Status::ok:
      return 0;
    case Status::timeout:
      return 1;
    case Status::oom:
      return 2;
    case Status::error:
      return 3;
    case Status::skipped:
      return 0;
    case Status::cancelled:
      return 4;
  }
  return 3;
}

namespace {
// Above every status's severity: an error that left the rank's device unusable.
constexpr int kDeviceLost = 5;

Status from_severity(int v) {
  constexpr Status kOrder[] = {Status::ok,    Status::timeout,   Status::oom,
                               Status::error, Status::cancelled, Status::error};
  return kOrder[v];
}

}  // namespace

std::string broadcast_text(MPI_Comm comm, const std::string& text, int root) {
  int rank = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  int len = static_cast<int>(text.size());
  SCALETUNE_MPI_CHECK(MPI_Bcast(&len, 1, MPI_INT, root, comm));
  std::string out = rank == root ? text : std::string(static_cast<std::size_t>(len), '\0');
  SCALETUNE_MPI_CHECK(MPI_Bcast(out.data(), len, MPI_CHAR, root, comm));
  return out;
}

Status worst_status(MPI_Comm comm, Status local) {
  int mine = severity(local);
  int worst = 0;
  SCALETUNE_MPI_CHECK(MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, comm));
  return from_severity(worst);
}

AgreedStatus agree_status(MPI_Comm comm, Status local, const std::string& message,
                          bool fatal_device) {
  const int level = fatal_device ? kDeviceLost : severity(local);
  int worst = 0;
  SCALETUNE_MPI_CHECK(MPI_Allreduce(&level, &worst, 1, MPI_INT, MPI_MAX, comm));
  if (worst == 0) return {};
  int rank = 0;
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  int mine = level == worst ? rank : INT_MAX;
  int reporter = 0;
  SCALETUNE_MPI_CHECK(MPI_Allreduce(&mine, &reporter, 1, MPI_INT, MPI_MIN, comm));
  const std::string text = broadcast_text(comm, message, reporter);
  AgreedStatus agreed{from_severity(worst), "rank " + std::to_string(reporter) + ": " + text, {}};
  if (worst == kDeviceLost) agreed.device_lost = DeviceLoss{reporter, text};
  return agreed;
}

}  // namespace scaletune::mpi
