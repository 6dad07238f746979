#include "result_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace scaletune::mpi {

namespace {
// True when `fd` is still the file at `path` (a holder that finished may have unlinked it
// between our open and our lock).
bool still_linked(int fd, const std::string& path) {
  struct stat by_fd {};
  struct stat by_path {};
  return ::fstat(fd, &by_fd) == 0 && ::stat(path.c_str(), &by_path) == 0 &&
         by_fd.st_ino == by_path.st_ino && by_fd.st_dev == by_path.st_dev;
}
}  // namespace

ResultLock::ResultLock(const std::string& result_path) : m_path(result_path + ".lock") {
  const std::filesystem::path parent = std::filesystem::path(m_path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  while (!try_lock(result_path)) {
  }
}

bool ResultLock::try_lock(const std::string& result_path) {
  m_fd = ::open(m_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0)
    throw std::runtime_error("cannot create the lock file " + m_path + ": " + std::strerror(errno));
  if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(m_fd);
    m_fd = -1;
    if (err == EWOULDBLOCK)
      throw std::runtime_error("another scaletune run is writing " + result_path + " (" + m_path +
                               " is locked); wait for it or choose another --out");
    throw std::runtime_error("cannot lock " + m_path + ": " + std::strerror(err));
  }
  if (still_linked(m_fd, m_path)) return true;
  ::close(m_fd);  // locked a file its holder had just removed: lock the new one
  m_fd = -1;
  return false;
}

ResultLock::~ResultLock() {
  if (m_fd < 0) return;
  ::unlink(m_path.c_str());  // while still locked: a waiting sweep then locks a fresh file
  ::close(m_fd);
}

}  // namespace scaletune::mpi
