#include "harness/core/detached_communicator.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "harness/core/described_memory.hpp"
#include "harness/core/host_reduce.hpp"

namespace scaletune::core {
namespace {

class EmptyBuffer final : public CommBuffer {
 public:
  explicit EmptyBuffer(std::size_t bytes) : m_bytes(bytes) {}
  void* data() override { return nullptr; }
  std::size_t bytes() const override { return m_bytes; }
  void upload(std::span<const std::byte>) override {}
  void download(std::span<std::byte> host) const override {
    std::fill(host.begin(), host.end(), std::byte{0});
  }

 private:
  std::size_t m_bytes;
};

class NullTimer final : public CommTimer {
 public:
  void mark() override { ++m_marks; }
  std::vector<double> intervals() override {
    std::vector<double> out(m_marks > 0 ? m_marks - 1 : 0, 0.0);
    m_marks = 0;
    return out;
  }

 private:
  std::size_t m_marks = 0;
};

/// acc[i] += in[i] over `count` elements of T.
template <class T>
void add(std::byte* acc, const std::byte* in, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) {
    T a, b;
    std::memcpy(&a, acc + i * sizeof(T), sizeof(T));
    std::memcpy(&b, in + i * sizeof(T), sizeof(T));
    a += b;
    std::memcpy(acc + i * sizeof(T), &a, sizeof(T));
  }
}

void add(DType type, std::byte* acc, const std::byte* in, std::size_t count) {
  switch (type) {
    case DType::fp32:
      return add<float>(acc, in, count);
    case DType::fp64:
      return add<double>(acc, in, count);
    case DType::int32:
      return add<std::int32_t>(acc, in, count);
    case DType::int64:
      return add<std::int64_t>(acc, in, count);
    case DType::fp16:
    case DType::bf16:
      return add_half_into(type, in, acc, count);
  }
}

}  // namespace

DetachedCommunicator::DetachedCommunicator(int rank, int size, std::string backend,
                                           MemorySpace space, const HostExchanges* earlier)
    : m_rank(rank),
      m_size(size),
      m_backend(std::move(backend)),
      m_space(space),
      m_earlier(earlier) {
  if (size < 1 || rank < 0 || rank >= size)
    throw std::invalid_argument("DetachedCommunicator: rank " + std::to_string(rank) + " of " +
                                std::to_string(size) + "; expected 0 <= rank < size");
}

std::unique_ptr<CommBuffer> DetachedCommunicator::allocate(std::size_t bytes) {
  return std::make_unique<EmptyBuffer>(bytes);
}

std::unique_ptr<CommTimer> DetachedCommunicator::timer() {
  return std::make_unique<NullTimer>();
}

std::size_t DetachedCommunicator::keep(const void* send, std::size_t bytes) {
  std::vector<std::byte>& kept = m_sends.emplace_back();
  if (!is_described(send)) {
    const auto* p = static_cast<const std::byte*>(send);
    kept.assign(p, p + bytes);
  }
  return m_sends.size() - 1;
}

std::vector<std::byte> DetachedCommunicator::earlier_send(int p, std::size_t call,
                                                          std::size_t bytes) const {
  std::vector<std::byte> out(bytes, std::byte{0});
  if (p == m_rank) {
    const std::vector<std::byte>& mine = m_sends.at(call);
    std::copy_n(mine.begin(), std::min(bytes, mine.size()), out.begin());
    return out;
  }
  if (m_earlier == nullptr || static_cast<std::size_t>(p) >= m_earlier->size()) return out;
  const auto& calls = (*m_earlier)[static_cast<std::size_t>(p)];
  if (call >= calls.size()) return out;
  std::copy_n(calls[call].begin(), std::min(bytes, calls[call].size()), out.begin());
  return out;
}

void DetachedCommunicator::refuse_host(const char* op, const void* send, const void* recv) const {
  if (is_described(send) && is_described(recv)) return;
  throw std::logic_error(std::string("DetachedCommunicator: ") + op +
                         " on host memory cannot be described (no workload plans with it)");
}

void DetachedCommunicator::all_reduce(const void* send, void* recv, std::size_t count, DType type,
                                      ReduceOp op) {
  const std::size_t bytes = count * dtype_bytes(type);
  const std::size_t call = keep(send, bytes);
  if (is_described(recv)) return;
  std::vector<std::byte> acc = earlier_send(0, call, bytes);
  for (int p = 1; p < m_size; ++p)
    add(type, acc.data(), earlier_send(p, call, bytes).data(), count);
  if (op == ReduceOp::avg) divide_by_ranks(type, acc.data(), count, m_size);
  std::memcpy(recv, acc.data(), bytes);
}

void DetachedCommunicator::gather(std::size_t call, void* recv, std::span<const std::size_t> counts,
                                  DType type) {
  if (is_described(recv)) return;
  auto* out = static_cast<std::byte*>(recv);
  for (int p = 0; p < m_size; ++p) {
    const std::size_t bytes = counts[static_cast<std::size_t>(p)] * dtype_bytes(type);
    const std::vector<std::byte> block = earlier_send(p, call, bytes);
    std::memcpy(out, block.data(), bytes);
    out += bytes;
  }
}

void DetachedCommunicator::all_gather(const void* send, void* recv, std::size_t send_count,
                                      DType type) {
  const std::size_t call = keep(send, send_count * dtype_bytes(type));
  const std::vector<std::size_t> counts(static_cast<std::size_t>(m_size), send_count);
  gather(call, recv, counts, type);
}

void DetachedCommunicator::all_gatherv(const void* send, void* recv,
                                       std::span<const std::size_t> counts, DType type) {
  const std::size_t call = keep(send, counts[static_cast<std::size_t>(m_rank)] * dtype_bytes(type));
  gather(call, recv, counts, type);
}

void DetachedCommunicator::broadcast(const void* send, void* recv, std::size_t count, DType type,
                                     int root) {
  const std::size_t bytes = count * dtype_bytes(type);
  const std::size_t call = keep(root == m_rank ? send : nullptr, bytes);
  if (is_described(recv)) return;
  const std::vector<std::byte> data = earlier_send(root, call, bytes);
  std::memcpy(recv, data.data(), bytes);
}

void DetachedCommunicator::reduce_scatter(const void* send, void* recv, std::size_t, DType,
                                          ReduceOp) {
  refuse_host("reduce_scatter", send, recv);
  keep(nullptr, 0);
}

void DetachedCommunicator::reduce_scatterv(const void* send, void* recv,
                                           std::span<const std::size_t>, DType, ReduceOp) {
  refuse_host("reduce_scatterv", send, recv);
  keep(nullptr, 0);
}

void DetachedCommunicator::all_to_all(const void* send, void* recv, std::size_t, DType) {
  refuse_host("all_to_all", send, recv);
  keep(nullptr, 0);
}

void DetachedCommunicator::all_to_allv(const void* send, std::span<const std::size_t>, void* recv,
                                       std::span<const std::size_t>, DType) {
  refuse_host("all_to_allv", send, recv);
  keep(nullptr, 0);
}

}  // namespace scaletune::core
