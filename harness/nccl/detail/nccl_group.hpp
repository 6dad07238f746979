#pragma once
// ncclGroupStart/ncclGroupEnd as a scope, so an error inside a group still closes it.

#include <nccl.h>

namespace scaletune::nccl::detail {

/// Opens an NCCL group (ncclGroupStart); end() closes it and launches the grouped operations.
/// If end() was not reached (an exception), the destructor closes the group, ignoring errors.
class NcclGroup {
 public:
  /// Throws NcclError.
  explicit NcclGroup(ncclComm_t comm);
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;
  ~NcclGroup();

  /// ncclGroupEnd; throws NcclError.
  void end();

 private:
  ncclComm_t m_comm;
  bool m_open = false;
};

}  // namespace scaletune::nccl::detail
