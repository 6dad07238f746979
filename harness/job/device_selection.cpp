#include "harness/job/device_selection.hpp"

#include <algorithm>
#include <vector>

#include "harness/job/detail/text.hpp"
#include "harness/job/detail/workload_kinds.hpp"

namespace scaletune::job {
namespace {

constexpr int kMinBf16Capability = 80;  // compute capability 8.0 (Ampere)

/// "rank 3 on node07".
std::string rank_on_host(const RankDevices& rank) {
  return "rank " + std::to_string(rank.rank) + " on " + rank.host;
}

/// The lowest-numbered rank of `ranks` for which `lacks` holds, and how many it holds for.
template <class Lacks>
std::pair<const RankDevices*, long> first_lacking(std::span<const RankDevices> ranks, Lacks lacks) {
  const RankDevices* first = nullptr;
  long count = 0;
  for (const RankDevices& rank : ranks) {
    if (!lacks(rank)) continue;
    ++count;
    if (first == nullptr || rank.rank < first->rank) first = &rank;
  }
  return {first, count};
}

/// "", or " (3 ranks of the launch lack WHAT)" when more than the named one does.
std::string others_lacking(long count, const std::string& what) {
  return count > 1 ? " (" + detail::counted(count, "rank") + " of the launch lack " + what + ")"
                   : "";
}

std::string capability_text(int capability) {
  return std::to_string(capability / 10) + "." + std::to_string(capability % 10);
}

}  // namespace

std::string_view device_kind_text(DeviceKind kind) {
  return kind == DeviceKind::cuda ? "cuda" : "host";
}

bool supports_bf16(const RankDevices& rank) {
  return rank.compute_capability >= kMinBf16Capability;
}

DeviceKind choose_device_kind(DeviceKindRequest request, std::span<const RankDevices> ranks,
                              bool cuda_built) {
  const auto [lacking, count] =
      first_lacking(ranks, [](const RankDevices& rank) { return rank.cuda_devices < 1; });
  const bool everywhere = cuda_built && !ranks.empty() && lacking == nullptr;
  switch (request) {
    case DeviceKindRequest::host:
      return DeviceKind::host;
    case DeviceKindRequest::auto_select:
      return everywhere ? DeviceKind::cuda : DeviceKind::host;
    case DeviceKindRequest::cuda:
      break;
  }
  const std::string instead = "; use [devices] kind = \"host\" or \"auto\"";
  if (!cuda_built)
    throw DeviceUnavailable(
        "devices.kind = \"cuda\" needs CUDA, but this scaletune was built without it (CMake found "
        "no CUDA toolkit); rebuild where the toolkit is installed" +
        instead);
  if (lacking != nullptr)
    throw DeviceUnavailable("devices.kind = \"cuda\" needs a CUDA device on every rank, but " +
                            rank_on_host(*lacking) + " sees none (cudaGetDeviceCount found " +
                            std::to_string(lacking->cuda_devices) + ")" +
                            others_lacking(count, "a CUDA device") + instead);
  if (ranks.empty()) throw DeviceUnavailable("devices.kind = \"cuda\": the launch has no ranks");
  return DeviceKind::cuda;
}

void check_precision_on_devices(DataType precision, DeviceKind kind,
                                std::span<const RankDevices> ranks) {
  if (kind != DeviceKind::cuda || precision != DataType::bf16) return;
  const auto [lacking, count] =
      first_lacking(ranks, [](const RankDevices& rank) { return !supports_bf16(rank); });
  if (lacking == nullptr) return;
  throw DeviceUnavailable(
      "precision \"bf16\" needs a CUDA device of compute capability 8.0 or higher, but " +
      rank_on_host(*lacking) + " has device \"" + lacking->device + "\" of compute capability " +
      capability_text(lacking->compute_capability) + others_lacking(count, "bf16 support") +
      "; use precision \"fp16\" (any CUDA device) or \"fp32\"");
}

bool precision_supported_on_host(std::string_view kind, DataType precision) {
  const detail::WorkloadKind& workload = detail::workload_kind(kind);
  return !workload.sweeps_batch ||
         std::ranges::find(workload.host_precisions, precision) != workload.host_precisions.end();
}

std::string unsupported_on_host_message(std::string_view kind, DataType precision) {
  std::vector<std::string_view> supported;
  for (const DataType type : detail::workload_kind(kind).host_precisions)
    supported.push_back(data_type_text(type));
  const std::string quoted = "\"" + detail::join(supported, "\" or \"") + "\"";
  return "precision \"" + std::string(data_type_text(precision)) + "\" of workload.kind = \"" +
         std::string(kind) +
         "\" needs CUDA devices (16-bit activations and tensor-core GEMMs); on the host " +
         std::string(kind) + " trains in " + detail::join(supported, " or ") +
         " only: use precision " + quoted;
}

}  // namespace scaletune::job
