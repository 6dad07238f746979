#pragma once
// The one error a rank cannot recover from by going on to the next configuration: its device
// (for CUDA: the process's context) is unusable for the rest of the process. Host-side, so the
// sweep recognises it without any device headers (STYLE.md "Errors": sticky device errors end
// the launch).

#include <stdexcept>
#include <string>

namespace scaletune::core {

/// A device error after which nothing more can run on the device in this process (e.g. CUDA's
/// sticky errors: an illegal address or a failed launch). A sweep records the running
/// configuration as error and then stops the launch.
///
/// std::runtime_error is a virtual base, so a backend's error type can derive from both its own
/// error class and this one (device::StickyCudaError is a device::CudaError and a
/// FatalDeviceError) and still be caught once as std::exception. A most-derived class must
/// initialise std::runtime_error itself.
class FatalDeviceError : public virtual std::runtime_error {
 public:
  explicit FatalDeviceError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace scaletune::core
