#pragma once
// Independent host work spread over the machine's cores: describing and costing many
// configurations or tables, where each item's work is pure CPU and writes only its own slot.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace scaletune::core {

/// How many threads parallel_each(n, max_workers, ...) runs on: max_workers, at most
/// std::thread::hardware_concurrency() and n, at least 1.
inline unsigned parallel_workers(std::size_t n, unsigned max_workers) {
  const unsigned cores = std::max(std::thread::hardware_concurrency(), 1u);
  return static_cast<unsigned>(
      std::max<std::size_t>(std::min<std::size_t>({max_workers, cores, n}), 1));
}

/// Calls `fn(i, w)` once for every i in [0, n) on parallel_workers(n, max_workers) threads,
/// the calling one included; w in [0, parallel_workers(n, max_workers)) is the thread running
/// it (for state of its own), each thread takes the next index, in no fixed order. `fn` must
/// be safe to call concurrently for different indices and threads. The first exception `fn`
/// throws stops the handing out of indices and is rethrown once every thread has finished its
/// current index.
template <class Fn>
void parallel_each(std::size_t n, unsigned max_workers, Fn fn) {
  std::atomic<std::size_t> next{0};
  std::mutex failure_lock;
  std::exception_ptr failure;
  const auto work = [&](unsigned worker) {
    for (std::size_t i = next++; i < n; i = next++) {
      try {
        fn(i, worker);
      } catch (...) {
        const std::lock_guard<std::mutex> hold(failure_lock);
        if (!failure) failure = std::current_exception();
        next = n;
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < parallel_workers(n, max_workers); ++w) threads.emplace_back(work, w);
  work(0);
  for (std::thread& t : threads) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace scaletune::core
