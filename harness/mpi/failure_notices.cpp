#include "failure_notices.hpp"

#include <algorithm>

#include "harness/mpi/mpi_error.hpp"

namespace scaletune::mpi {

namespace {

constexpr std::size_t kMaxMessage = 1000;  // bytes: well under every transport's eager limit
constexpr int kTagSpan = 32768;            // MPI_TAG_UB is at least 32767

bool thread_multiple() {
  int provided = MPI_THREAD_SINGLE;
  SCALETUNE_MPI_CHECK(MPI_Query_thread(&provided));
  return provided == MPI_THREAD_MULTIPLE;
}

}  // namespace

FailureNotices::FailureNotices(MPI_Comm world) : m_enabled(thread_multiple()) {
  SCALETUNE_MPI_CHECK(MPI_Comm_rank(world, &m_rank));
  SCALETUNE_MPI_CHECK(MPI_Comm_dup(world, &m_comm));
}

FailureNotices::~FailureNotices() {
  static_cast<void>(MPI_Comm_free(&m_comm));
}

void FailureNotices::begin(int index) {
  m_tag = index % kTagSpan;
  m_announced = false;
  m_longest_step_s = 0.0;
  const std::lock_guard lock(m_mutex);
  m_local.reset();
}

void FailureNotices::note_step(double seconds) {
  if (seconds > m_longest_step_s) m_longest_step_s = seconds;  // only the main thread writes
}

void FailureNotices::announce(const std::string& message) {
  if (!m_enabled || m_announced) return;
  m_announced = true;
  const std::string& text = m_sent.emplace_back(message.substr(0, kMaxMessage));
  if (m_rank == 0) {
    const std::lock_guard lock(m_mutex);
    m_local = text;
    return;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  SCALETUNE_MPI_CHECK(
      MPI_Isend(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, m_tag, m_comm, &request));
  SCALETUNE_MPI_CHECK(MPI_Request_free(&request));
}

std::optional<std::string> FailureNotices::poll() {
  const std::lock_guard lock(m_mutex);
  if (m_local) return m_local;
  for (;;) {
    int arrived = 0;
    MPI_Status status;
    SCALETUNE_MPI_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, m_comm, &arrived, &status));
    if (!arrived) return std::nullopt;
    int length = 0;
    SCALETUNE_MPI_CHECK(MPI_Get_count(&status, MPI_CHAR, &length));
    std::string text(static_cast<std::size_t>(std::max(length, 0)), '\0');
    SCALETUNE_MPI_CHECK(MPI_Recv(text.data(), length, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG,
                                 m_comm, MPI_STATUS_IGNORE));
    if (status.MPI_TAG == m_tag) return text;
  }
}

}  // namespace scaletune::mpi
