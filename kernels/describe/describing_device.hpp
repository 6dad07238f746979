#pragma once
// The device of a step described without running it: it stands for a host core or a CUDA
// device of the described configuration, holds no memory and runs nothing, and carries the
// recorder the rank's describing backend (kernels::make_backend) records its ops into.

#include <string>

#include "harness/core/device.hpp"
#include "harness/trace/step_trace.hpp"

namespace scaletune::kernels::describe {

/// Stands for a device of `kind` (host or cuda: what the described run would compute on).
/// memory_free_bytes() is 0 (unknown: no budget from it); fence() does nothing. The recorder
/// must outlive it.
class DescribingDevice final : public core::Device {
 public:
  DescribingDevice(core::DeviceKind kind, trace::Recorder& recorder)
      : m_kind(kind), m_recorder(recorder) {}
  core::DeviceKind kind() const override { return m_kind; }
  std::string name() const override {
    return m_kind == core::DeviceKind::cuda ? "described cuda" : "described host-core";
  }
  std::int64_t memory_free_bytes() const override { return 0; }
  void fence() override {}
  trace::Recorder& recorder() const { return m_recorder; }

 private:
  core::DeviceKind m_kind;
  trace::Recorder& m_recorder;
};

}  // namespace scaletune::kernels::describe
