#include <stdexcept>

#include "harness/results/result_types.hpp"

namespace scaletune::results {

const char* to_string(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::oom:
      return "oom";
    case Status::timeout:
      return "timeout";
    case Status::error:
      return "error";
    case Status::skipped:
      return "skipped";
    case Status::cancelled:
      return "cancelled";
  }
  return "error";
}

bool is_device_kind_name(std::string_view name) {
  return name == kHostDeviceKind || name == "cuda";
}

Status status_from_string(const std::string& text) {
  for (Status s : {Status::ok, Status::oom, Status::timeout, Status::error, Status::skipped,
                   Status::cancelled})
    if (text == to_string(s)) return s;
  throw std::invalid_argument("status '" + text +
                              "' is not one of ok, oom, timeout, error, skipped, cancelled");
}

}  // namespace scaletune::results
