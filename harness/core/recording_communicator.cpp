#include "harness/core/recording_communicator.hpp"

#include <algorithm>
#include <string>

namespace scaletune::core {
namespace {

std::vector<std::int64_t> as_counts(std::span<const std::size_t> counts) {
  return {counts.begin(), counts.end()};
}

std::size_t largest(std::span<const std::size_t> counts) {
  return counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
}

}  // namespace

RecordingCommunicator::RecordingCommunicator(Communicator& inner, trace::CollectiveSink& sink)
    : m_inner(inner), m_sink(sink) {}

template <class Make, class Call>
void RecordingCommunicator::around(Make&& make, Call&& call) {
  if (!m_sink.recording()) {
    call();
    return;
  }
  m_sink.add(make());
  call();
  m_sink.issued();
}

trace::Collective RecordingCommunicator::collective(const char* op, std::size_t count, DType type,
                                                    std::size_t message_elements,
                                                    bool started) const {
  trace::Collective c;
  c.op = op;
  c.dtype = std::string(dtype_key(type));
  c.count = static_cast<std::int64_t>(count);
  c.bytes = static_cast<std::int64_t>(message_elements * dtype_bytes(type));
  c.participants = size();
  c.started = started;
  return c;
}

// The v-ops' message size is the largest block's, as the uniform op with that block would be.
trace::Collective RecordingCommunicator::collective_v(const char* op,
                                                      std::span<const std::size_t> counts,
                                                      DType type) const {
  trace::Collective c;
  c.op = op;
  c.dtype = std::string(dtype_key(type));
  c.count = static_cast<std::int64_t>(counts[static_cast<std::size_t>(rank())]);
  c.bytes = static_cast<std::int64_t>(largest(counts) * counts.size() * dtype_bytes(type));
  c.peer_counts = as_counts(counts);
  c.participants = size();
  return c;
}

void RecordingCommunicator::all_reduce(const void* send, void* recv, std::size_t count, DType type,
                                       ReduceOp op) {
  around([&] { return collective("all_reduce", count, type, count); },
         [&] { m_inner.all_reduce(send, recv, count, type, op); });
}

void RecordingCommunicator::reduce_scatter(const void* send, void* recv, std::size_t recv_count,
                                           DType type, ReduceOp op) {
  const auto n = static_cast<std::size_t>(size());
  around([&] { return collective("reduce_scatter", recv_count * n, type, recv_count * n); },
         [&] { m_inner.reduce_scatter(send, recv, recv_count, type, op); });
}

void RecordingCommunicator::reduce_scatterv(const void* send, void* recv,
                                            std::span<const std::size_t> counts, DType type,
                                            ReduceOp op) {
  around([&] { return collective_v("reduce_scatterv", counts, type); },
         [&] { m_inner.reduce_scatterv(send, recv, counts, type, op); });
}

void RecordingCommunicator::all_gather(const void* send, void* recv, std::size_t send_count,
                                       DType type) {
  const auto n = static_cast<std::size_t>(size());
  around([&] { return collective("all_gather", send_count, type, send_count * n); },
         [&] { m_inner.all_gather(send, recv, send_count, type); });
}

void RecordingCommunicator::all_gatherv(const void* send, void* recv,
                                        std::span<const std::size_t> counts, DType type) {
  around([&] { return collective_v("all_gatherv", counts, type); },
         [&] { m_inner.all_gatherv(send, recv, counts, type); });
}

void RecordingCommunicator::all_to_all(const void* send, void* recv, std::size_t count,
                                       DType type) {
  const auto n = static_cast<std::size_t>(size());
  around([&] { return collective("alltoall", count * n, type, count * n); },
         [&] { m_inner.all_to_all(send, recv, count, type); });
}

void RecordingCommunicator::all_to_allv(const void* send, std::span<const std::size_t> send_counts,
                                        void* recv, std::span<const std::size_t> recv_counts,
                                        DType type) {
  const auto make = [&] {
    trace::Collective c;
    c.op = "alltoallv";
    c.dtype = std::string(dtype_key(type));
    for (const std::size_t n : send_counts) c.count += static_cast<std::int64_t>(n);
    const std::size_t block = std::max(largest(send_counts), largest(recv_counts));
    c.bytes = static_cast<std::int64_t>(block * send_counts.size() * dtype_bytes(type));
    c.peer_counts = as_counts(send_counts);
    c.recv_counts = as_counts(recv_counts);
    c.participants = size();
    return c;
  };
  around(make, [&] { m_inner.all_to_allv(send, send_counts, recv, recv_counts, type); });
}

void RecordingCommunicator::broadcast(const void* send, void* recv, std::size_t count, DType type,
                                      int root) {
  around([&] { return collective("broadcast", count, type, count); },
         [&] { m_inner.broadcast(send, recv, count, type, root); });
}

void RecordingCommunicator::start_all_reduce(const void* send, void* recv, std::size_t count,
                                             DType type, ReduceOp op) {
  around([&] { return collective("all_reduce", count, type, count, true); },
         [&] { m_inner.start_all_reduce(send, recv, count, type, op); });
}

bool RecordingCommunicator::progress_started() {
  const bool done = m_inner.progress_started();
  if (done && m_sink.recording()) m_sink.progressed();
  return done;
}

void RecordingCommunicator::wait_started() {
  if (!m_sink.recording()) {
    m_inner.wait_started();
    return;
  }
  m_sink.add_wait_started();
  m_inner.wait_started();
  m_sink.issued();
}

void RecordingCommunicator::barrier() {
  around([&] { return collective("barrier", 0, DType::fp32, 0); }, [&] { m_inner.barrier(); });
}

}  // namespace scaletune::core
