#include "harness/job/detail/devices_table.hpp"

#include <array>
#include <string>
#include <string_view>

#include "harness/job/detail/table_reader.hpp"

namespace scaletune::job::detail {
namespace {

constexpr std::array<std::string_view, 2> kKeys = {"kind", "memory_gib"};

std::vector<double> read_memory_gib(const TableReader& devices, int max_ranks) {
  const toml::node* node = devices.find("memory_gib");
  if (node == nullptr) return {};
  if (node->is_number()) return {devices.as_positive_number(*node, "memory_gib", kMaxMemoryGib)};
  const toml::array* list = node->as_array();
  if (list == nullptr)
    devices.fail_type(*node, "memory_gib",
                      "a number or a list of numbers (GiB per rank), e.g. memory_gib = 16");
  if (list->empty())
    devices.fail(*node, "memory_gib",
                 "memory_gib must not be an empty list; give one value for every rank or one "
                 "per rank");
  std::vector<double> memory_gib;
  for (const toml::node& element : *list)
    memory_gib.push_back(devices.as_positive_number(element, "memory_gib", kMaxMemoryGib));
  if (memory_gib.size() > 1 && memory_gib.size() < static_cast<std::size_t>(max_ranks))
    devices.fail(*node, "memory_gib",
                 "memory_gib lists " + std::to_string(memory_gib.size()) +
                     " values but sweep.ranks goes up to " + std::to_string(max_ranks) +
                     "; give one number for every rank, or a list with one value per rank");
  return memory_gib;
}

}  // namespace

DeviceKindRequest read_device_kind(const TableReader& devices) {
  devices.reject_unknown_keys(kKeys);
  return devices.choice("kind", kDeviceKindRequests, device_kind_request_text)
      .value_or(DeviceKindRequest::auto_select);
}

DevicesSpec read_devices(const TableReader& devices, int max_ranks) {
  return DevicesSpec{.kind = read_device_kind(devices),
                     .memory_gib = read_memory_gib(devices, max_ranks)};
}

}  // namespace scaletune::job::detail
