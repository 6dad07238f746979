#include "harness/core/gradient_reducer.hpp"

#include <stdexcept>

namespace scaletune::core {
namespace {

std::size_t bucket_floats(double bucket_bytes) {
  if (!(bucket_bytes >= sizeof(float)))
    throw std::invalid_argument("gradient bucket must hold at least one float (4 bytes)");
  return static_cast<std::size_t>(bucket_bytes / sizeof(float));
}

}  // namespace

std::size_t bucket_count(std::size_t count, double bucket_bytes) {
  const std::size_t per = bucket_floats(bucket_bytes);
  return (count + per - 1) / per;
}

GradientReducer::GradientReducer(Communicator& comm, float* grads, std::size_t count,
                                 double bucket_bytes, bool overlap)
    : m_comm(comm),
      m_grads(grads),
      m_count(count),
      m_per_bucket(bucket_floats(bucket_bytes)),
      m_buckets(bucket_count(count, bucket_bytes)),
      m_overlap(overlap) {}

std::size_t GradientReducer::end(std::size_t i) const {
  return m_count - i * m_per_bucket;
}

std::size_t GradientReducer::begin(std::size_t i) const {
  const std::size_t e = end(i);
  return e > m_per_bucket ? e - m_per_bucket : 0;
}

void GradientReducer::start(std::size_t i) {
  float* bucket = m_grads + begin(i);
  m_comm.start_all_reduce(bucket, bucket, end(i) - begin(i), DType::fp32, ReduceOp::sum);
}

void GradientReducer::ready_from(std::size_t first_final) {
  if (!m_overlap) return;
  while (m_next < m_buckets && begin(m_next) >= first_final) start(m_next++);
  m_comm.progress_started();
}

// The buckets backward did not start are reduced with the blocking all-reduce once the started
// ones are done (every rank started the same ones, so the order is the same everywhere): MPI's
// blocking algorithms beat its non-blocking ones (Open MPI 4.1, 2 ranks on shared memory:
// MPI_Allreduce of 6 MiB 2.2 ms, MPI_Iallreduce and MPI_Wait 5.9 ms).
void GradientReducer::finish() {
  m_comm.wait_started();
  for (; m_next < m_buckets; ++m_next) {
    float* bucket = m_grads + begin(m_next);
    m_comm.all_reduce(bucket, bucket, end(m_next) - begin(m_next), DType::fp32, ReduceOp::sum);
  }
  m_next = 0;
}

}  // namespace scaletune::core
