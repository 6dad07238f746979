#include "harness/job/detail/resnet50_options.hpp"

#include <array>

#include "harness/job/detail/table_reader.hpp"
#include "harness/job/detail/text.hpp"

namespace scaletune::job::detail {
namespace {

constexpr std::array<std::string_view, 4> kKeys = {"image_size", "width", "num_classes",
                                                   "sync_batch_norm"};
constexpr int kMinImageSize = 32;    // five stride-2 stages leave a 1x1 map at 32 px
constexpr int kMaxImageSize = 8192;  // 8192^2 x 3 values per sample still fits an int
constexpr double kMaxWidth = 4.0;
constexpr int kMinClasses = 2;
constexpr int kMaxClasses = 10'000'000;

}  // namespace

std::span<const std::string_view> resnet50_option_keys() {
  return kKeys;
}

void read_resnet50_options(const TableReader& workload, WorkloadSpec& spec) {
  ResNet50Options& options = spec.resnet50;
  options.image_size = static_cast<int>(
      workload.integer("image_size", kMinImageSize, kMaxImageSize).value_or(options.image_size));
  options.width = workload.positive_number("width", kMaxWidth).value_or(options.width);
  options.num_classes = static_cast<int>(
      workload.integer("num_classes", kMinClasses, kMaxClasses).value_or(options.num_classes));
  options.sync_batch_norm = workload.boolean("sync_batch_norm").value_or(options.sync_batch_norm);
}

std::string describe_resnet50_options(const WorkloadSpec& spec) {
  const ResNet50Options& options = spec.resnet50;
  return "image_size=" + std::to_string(options.image_size) +
         " width=" + format_number(options.width) +
         " num_classes=" + std::to_string(options.num_classes) +
         " sync_batch_norm=" + (options.sync_batch_norm ? "true" : "false");
}

}  // namespace scaletune::job::detail
