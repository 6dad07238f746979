#include "nccl_group.hpp"

#include "harness/nccl/nccl_error.hpp"

namespace scaletune::nccl::detail {

NcclGroup::NcclGroup(ncclComm_t comm) : m_comm(comm) {
  SCALETUNE_NCCL_CHECK(ncclGroupStart(), m_comm);
  m_open = true;
}

NcclGroup::~NcclGroup() {
  if (m_open) static_cast<void>(ncclGroupEnd());  // cleanup never throws
}

void NcclGroup::end() {
  m_open = false;
  SCALETUNE_NCCL_CHECK(ncclGroupEnd(), m_comm);
}

}  // namespace scaletune::nccl::detail
