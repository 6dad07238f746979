#pragma once
// The data-parallel gradient exchange of PyTorch DDP (Li et al., "PyTorch Distributed:
// Experiences on Accelerating Data Parallel Training", VLDB 2020, section 3.2.3): the flat
// gradient buffer is cut into buckets of at most bucket_bytes from its end to its front (the
// order backward finishes them, parameters being laid out in forward order), and with overlap
// each bucket is all-reduced as soon as backward has written its last gradient, while backward
// goes on.

#include <cstddef>

#include "harness/core/communicator.hpp"

namespace scaletune::core {

/// Number of buckets `count` floats fall into with buckets of `bucket_bytes` (>= 4) each.
std::size_t bucket_count(std::size_t count, double bucket_bytes);

/// One step's exchange of [count] fp32 gradients at `grads` (in comm's memory space) summed
/// over comm's ranks. Without overlap every bucket is reduced in finish() (blocking
/// Communicator::all_reduce), last bucket first; with overlap ready_from() starts each bucket
/// (Communicator::start_all_reduce) once backward has made it final, and finish() waits for them
/// and reduces the rest: the same all-reduces, in the same order and sizes, only started
/// earlier. Reusable step after step; allocates nothing.
class GradientReducer {
 public:
  /// Throws std::invalid_argument when bucket_bytes < 4 (one float). comm and grads must
  /// outlive the reducer.
  GradientReducer(Communicator& comm, float* grads, std::size_t count, double bucket_bytes,
                  bool overlap);

  /// Backward has made every gradient at [first_final, count) final. With overlap: starts the
  /// all-reduce of every not yet started bucket that lies entirely in that range, then drives
  /// the started ones (Communicator::progress_started). Without overlap: nothing.
  void ready_from(std::size_t first_final);

  /// Waits for the started buckets (Communicator::wait_started), then all-reduces the others
  /// in order. Then grads holds the sum over ranks, and the next step may begin.
  void finish();

  /// Buckets per step.
  std::size_t buckets() const { return m_buckets; }
  /// Whether buckets start during backward.
  bool overlaps() const { return m_overlap; }

 private:
  /// Bucket i covers [begin(i), end(i)): bucket 0 ends at count.
  std::size_t begin(std::size_t i) const;
  std::size_t end(std::size_t i) const;
  void start(std::size_t i);

  Communicator& m_comm;
  float* m_grads;
  std::size_t m_count;
  std::size_t m_per_bucket;
  std::size_t m_buckets;
  bool m_overlap;
  std::size_t m_next = 0;  ///< the next bucket to start this step
};

}  // namespace scaletune::core
