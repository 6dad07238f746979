#pragma once
// A base for unit tests' stand-in communicators: host memory, and every operation fails the
// test unless the test overrides it, so a test states exactly which collectives it expects.

#include <memory>
#include <span>
#include <stdexcept>
#include <string>

#include "harness/core/communicator.hpp"
#include "harness/core/host_buffer.hpp"
#include "harness/core/host_timer.hpp"

namespace scaletune::testing_support {

/// core::Communicator of rank `rank` in a group of `size`, backend "test", host memory
/// (core::HostBuffer, core::HostTimer). Every collective, barrier() and synchronize() throw
/// std::logic_error("FakeCommunicator: <op> not used by this test") unless overridden.
class FakeCommunicator : public core::Communicator {
 public:
  FakeCommunicator(int rank, int size) : m_rank(rank), m_size(size) {}

  int rank() const override { return m_rank; }
  int size() const override { return m_size; }
  std::string backend() const override { return "test"; }
  core::MemorySpace memory_space() const override { return core::MemorySpace::host; }
  std::unique_ptr<core::CommBuffer> allocate(std::size_t bytes) override {
    return std::make_unique<core::HostBuffer>(bytes);
  }
  std::unique_ptr<core::CommTimer> timer() override { return std::make_unique<core::HostTimer>(); }

  void all_reduce(const void*, void*, std::size_t, core::DType, core::ReduceOp) override {
    not_used("all_reduce");
  }
  void reduce_scatter(const void*, void*, std::size_t, core::DType, core::ReduceOp) override {
    not_used("reduce_scatter");
  }
  void reduce_scatterv(const void*, void*, std::span<const std::size_t>, core::DType,
                       core::ReduceOp) override {
    not_used("reduce_scatterv");
  }
  void all_gather(const void*, void*, std::size_t, core::DType) override { not_used("all_gather"); }
  void all_gatherv(const void*, void*, std::span<const std::size_t>, core::DType) override {
    not_used("all_gatherv");
  }
  void all_to_all(const void*, void*, std::size_t, core::DType) override { not_used("all_to_all"); }
  void all_to_allv(const void*, std::span<const std::size_t>, void*, std::span<const std::size_t>,
                   core::DType) override {
    not_used("all_to_allv");
  }
  void broadcast(const void*, void*, std::size_t, core::DType, int) override {
    not_used("broadcast");
  }
  void barrier() override { not_used("barrier"); }
  void synchronize() override { not_used("synchronize"); }

 private:
  [[noreturn]] static void not_used(const char* op) {
    throw std::logic_error(std::string("FakeCommunicator: ") + op + " not used by this test");
  }

  int m_rank;
  int m_size;
};

}  // namespace scaletune::testing_support
