#include "harness/results/result_error.hpp"

#include <cerrno>

namespace scaletune::results {

bool is_out_of_room(int os_error) {
  return os_error == ENOSPC || os_error == EDQUOT || os_error == EFBIG || os_error == EIO;
}

}  // namespace scaletune::results
