#include "harness/results/result_error.hpp"

#include <cerrno>

namespace scaletune::results {

bool WriteError::out_of_room() const {
  return m_os_error == ENOSPC || m_os_error == EDQUOT || m_os_error == EFBIG || m_os_error == EIO;
}

}  // namespace scaletune::results
