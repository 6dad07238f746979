#include "harness/results/prediction_file.hpp"

#include <algorithm>
#include <filesystem>

#include "harness/results/detail/config_check.hpp"
#include "harness/results/detail/config_io.hpp"
#include "harness/results/detail/damage_guard.hpp"
#include "harness/results/detail/file_access.hpp"
#include "harness/results/detail/file_image.hpp"
#include "harness/results/detail/h5_dataset.hpp"
#include "harness/results/detail/h5_group.hpp"
#include "harness/results/detail/provenance_io.hpp"
#include "harness/results/detail/timeline_table.hpp"

namespace scaletune::results {
namespace {

using detail::H5Where;

constexpr const char* kPredictions = "predictions";
constexpr const char* kTimelines = "timeline";
constexpr const char* kConfigs = "configs";

/// Throws ResultError naming /predictions/configs/<id> unless every described configuration is
/// the row's own and storable.
void check_described(const H5Where& predictions, const std::vector<PredictionRow>& rows) {
  const H5Where configs = predictions.child(kConfigs);
  for (const PredictionRow& r : rows) {
    if (r.described.id.empty()) continue;
    if (r.described.id != r.config)
      configs.child(r.described.id)
          .fail("describes another configuration than its row '" + r.config + "'");
    detail::check_storable(r.described, configs);
  }
}

/// Group timeline of /predictions (at `at`) with one dataset per row that has spans.
void write_timelines(hid_t predictions, const H5Where& at, const std::vector<PredictionRow>& rows) {
  if (std::none_of(rows.begin(), rows.end(),
                   [](const PredictionRow& r) { return !r.timeline.empty(); }))
    return;
  const detail::Group g = detail::create_group(predictions, at, kTimelines);
  const H5Where where = at.child(kTimelines);
  for (const PredictionRow& r : rows)
    if (!r.timeline.empty()) detail::write_timeline(g.id(), where, r.config, r.timeline);
}

/// Group configs of /predictions (at `at`) with the described configuration of each row.
void write_described(hid_t predictions, const H5Where& at, const std::vector<PredictionRow>& rows) {
  const detail::Group g = detail::create_group(predictions, at, kConfigs);
  for (const PredictionRow& r : rows)
    if (!r.described.id.empty())
      detail::write_config_group(g.id(), at.child(kConfigs), r.described);
}

std::string joined_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += (out.empty() ? "" : "\n") + line;
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t begin = 0, end = 0; end != std::string::npos && !text.empty(); begin = end + 1) {
    end = text.find('\n', begin);
    lines.push_back(text.substr(begin, end - begin));
  }
  return lines;
}

void write_rows(hid_t g, const H5Where& at, const std::vector<PredictionRow>& rows) {
  std::vector<std::string> ids, basis;
  std::vector<std::int64_t> ranks, critical;
  std::vector<double> step, throughput, compute, exposed, waiting, measured;
  for (const PredictionRow& r : rows) {
    ids.push_back(r.config);
    basis.push_back(joined_lines(r.basis));
    ranks.push_back(r.ranks);
    critical.push_back(r.critical_rank);
    step.push_back(r.step_time);
    throughput.push_back(r.throughput);
    compute.push_back(r.compute_s);
    exposed.push_back(r.exposed_communication_s);
    waiting.push_back(r.waiting_s);
    measured.push_back(r.measured_step_time);
  }
  const auto spec = [&](const char* units) {
    return detail::DatasetSpec{{rows.size()}, "configs", units};
  };
  detail::write_dataset(g, at, "config", spec(""), ids);
  detail::write_dataset(g, at, "ranks", spec(""), ranks);
  detail::write_dataset(g, at, "step_time", spec("s"), step);
  detail::write_dataset(g, at, "throughput", spec("samples/s"), throughput);
  detail::write_dataset(g, at, "compute", spec("s"), compute);
  detail::write_dataset(g, at, "exposed_communication", spec("s"), exposed);
  detail::write_dataset(g, at, "waiting", spec("s"), waiting);
  detail::write_dataset(g, at, "critical_rank", spec(""), critical);
  detail::write_dataset(g, at, "measured_step_time", spec("s"), measured);
  detail::write_dataset(g, at, "basis", spec(""), basis);
}

std::vector<PredictionRow> read_rows(hid_t g, const H5Where& at) {
  const auto ids = detail::read_string_dataset(g, at, "config").values;
  const auto ranks = detail::read_int64_dataset(g, at, "ranks").values;
  const auto critical = detail::read_int64_dataset(g, at, "critical_rank").values;
  const auto step = detail::read_double_dataset(g, at, "step_time").values;
  const auto throughput = detail::read_double_dataset(g, at, "throughput").values;
  const auto compute = detail::read_double_dataset(g, at, "compute").values;
  const auto exposed = detail::read_double_dataset(g, at, "exposed_communication").values;
  const auto waiting = detail::read_double_dataset(g, at, "waiting").values;
  const auto measured = detail::read_double_dataset(g, at, "measured_step_time").values;
  const auto basis = detail::has_link(g, at, "basis")
                         ? detail::read_string_dataset(g, at, "basis").values
                         : std::vector<std::string>(ids.size());
  const std::size_t n = ids.size();
  for (std::size_t size :
       {ranks.size(), critical.size(), step.size(), throughput.size(), compute.size(),
        exposed.size(), waiting.size(), measured.size(), basis.size()})
    if (size != n) at.fail("its datasets differ in length from config's " + std::to_string(n));
  std::vector<PredictionRow> rows;
  for (std::size_t i = 0; i < n; ++i)
    rows.push_back({ids[i],
                    static_cast<int>(ranks[i]),
                    step[i],
                    throughput[i],
                    compute[i],
                    exposed[i],
                    waiting[i],
                    static_cast<int>(critical[i]),
                    measured[i],
                    {},
                    {},
                    split_lines(basis[i])});
  return rows;
}

void read_extras(hid_t predictions, const H5Where& at, std::vector<PredictionRow>& rows) {
  if (detail::has_link(predictions, at, kTimelines)) {
    const detail::Group g = detail::open_group(predictions, at, kTimelines);
    for (PredictionRow& r : rows)
      r.timeline = detail::read_timeline(g.id(), at.child(kTimelines), r.config);
  }
  if (!detail::has_link(predictions, at, kConfigs)) return;
  const detail::Group g = detail::open_group(predictions, at, kConfigs);
  for (PredictionRow& r : rows)
    if (detail::has_link(g.id(), at.child(kConfigs), r.config))
      r.described = detail::read_config_group(g.id(), at.child(kConfigs), r.config);
}

}  // namespace

void write_prediction_file(const std::string& path, const Provenance& provenance,
                           const std::vector<PredictionRow>& rows) {
  const H5Where root{path, "/"};
  if (std::filesystem::exists(path))
    root.fail("exists; scaletune never overwrites a file: predict into a new one");
  const H5Where at = root.child(kPredictions);
  check_described(at, rows);
  const detail::File file = detail::create_memory_file(path);
  detail::write_provenance(file.id(), root, provenance);
  const detail::Group g = detail::create_group(file.id(), root, kPredictions);
  write_rows(g.id(), at, rows);
  write_timelines(g.id(), at, rows);
  write_described(g.id(), at, rows);
  detail::replace_with_image(file.id(), path);
}

bool is_prediction_file(const std::string& path) {
  return detail::read_guarded(path, [&] {
    const detail::File file = detail::open_result_file(path, H5F_ACC_RDONLY);
    return detail::has_link(file.id(), H5Where{path, "/"}, kPredictions);
  });
}

namespace {

std::vector<PredictionRow> read_predictions(const std::string& path) {
  const detail::File file = detail::open_result_file(path, H5F_ACC_RDONLY);
  const H5Where root{path, "/"};
  if (!detail::has_link(file.id(), root, kPredictions))
    H5Where{path, ""}.fail("has no /predictions (written by scaletune predict --out)");
  const detail::Group g = detail::open_group(file.id(), root, kPredictions);
  const H5Where at = root.child(kPredictions);
  std::vector<PredictionRow> rows = read_rows(g.id(), at);
  read_extras(g.id(), at, rows);
  return rows;
}

}  // namespace

std::vector<PredictionRow> read_prediction_file(const std::string& path) {
  return detail::read_guarded(path, [&] { return read_predictions(path); });
}

}  // namespace scaletune::results
