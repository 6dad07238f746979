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

void GradientReducer::finish() {
  while (m_next < m_buckets) start(m_next++);
  m_comm.wait_started();
  m_next = 0;
}

}  // namespace scaletune::core
