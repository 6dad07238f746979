#pragma once
// One writer per result file: a sweep holds an exclusive lock on "<file>.lock" while it writes.
// (The HDF5 file itself is opened without HDF5's own lock so that readers can look at a running
// sweep; this lock keeps a second sweep from writing into it.)

#include <string>

namespace scaletune::mpi {

/// Holds flock(LOCK_EX) on `result_path` + ".lock" for its lifetime and removes the lock file
/// on destruction. The kernel releases the lock when the process dies, so a lock file left by
/// a killed sweep does not block the next one. Throws std::runtime_error naming the file when
/// another process holds the lock or the lock file cannot be created.
class ResultLock {
 public:
  explicit ResultLock(const std::string& result_path);
  ~ResultLock();
  ResultLock(const ResultLock&) = delete;
  ResultLock& operator=(const ResultLock&) = delete;

 private:
  // Opens and locks the lock file; false when it was unlinked meanwhile (try again).
  bool try_lock(const std::string& result_path);

  std::string m_path;
  int m_fd = -1;
};

}  // namespace scaletune::mpi
