#include "harness/results/model_file.hpp"

#include <algorithm>
#include <filesystem>

#include "harness/results/detail/file_access.hpp"
#include "harness/results/detail/h5_attribute.hpp"
#include "harness/results/detail/h5_dataset.hpp"
#include "harness/results/detail/h5_group.hpp"
#include "harness/results/detail/provenance_io.hpp"
#include "harness/results/detail/timeline_table.hpp"

namespace scaletune::results {
namespace {

using detail::H5Where;

constexpr const char* kOpModels = "op_models";
constexpr const char* kCollectiveModels = "collective_models";

void write_doubles(hid_t g, const H5Where& at, const char* name, const std::vector<double>& v,
                   const char* units = "") {
  detail::write_dataset(g, at, name, {{v.size()}, "values", units}, v);
}

void write_texts(hid_t g, const H5Where& at, const char* name, const std::vector<std::string>& v) {
  detail::write_dataset(g, at, name, {{v.size()}, "values", ""}, v);
}

void write_op_model(hid_t parent, const H5Where& where, const OpModelRecord& m) {
  const std::string name = m.op + ":" + m.dtype + ":" + m.device_kind;
  const detail::Group g = detail::create_group(parent, where, name);
  const H5Where at = where.child(name);
  detail::write_attribute(g.id(), at, "op", m.op);
  detail::write_attribute(g.id(), at, "dtype", m.dtype);
  detail::write_attribute(g.id(), at, "device_kind", m.device_kind);
  detail::write_attribute(g.id(), at, "form", m.form);
  detail::write_attribute(g.id(), at, "points", m.points);
  detail::write_attribute(g.id(), at, "cv_mape", m.cv_mape);
  detail::write_attribute(g.id(), at, "other_cv_mape", m.other_cv_mape);
  write_texts(g.id(), at, "inputs", m.inputs);
  write_doubles(g.id(), at, "weights", m.weights);
  write_texts(g.id(), at, "range_names", m.range_names);
  write_doubles(g.id(), at, "range_low", m.range_low);
  write_doubles(g.id(), at, "range_high", m.range_high);
}

void write_collective_model(hid_t parent, const H5Where& where, const CollectiveModelRecord& m) {
  const std::string name =
      m.op + ":" + (m.form == "rank_count" ? std::string("ranks") : std::to_string(m.ranks));
  const detail::Group g = detail::create_group(parent, where, name);
  const H5Where at = where.child(name);
  detail::write_attribute(g.id(), at, "op", m.op);
  detail::write_attribute(g.id(), at, "form", m.form);
  detail::write_attribute(g.id(), at, "ranks", m.ranks);
  detail::write_attribute(g.id(), at, "points", m.points);
  detail::write_attribute(g.id(), at, "held_out_mape", m.held_out_mape);
  detail::write_attribute(g.id(), at, "min_bytes", m.min_bytes);
  detail::write_attribute(g.id(), at, "max_bytes", m.max_bytes);
  detail::write_attribute(g.id(), at, "min_ranks", m.min_ranks);
  detail::write_attribute(g.id(), at, "max_ranks", m.max_ranks);
  detail::write_attribute(g.id(), at, "sources", m.sources);
  write_doubles(g.id(), at, "parameters", m.parameters);
  write_doubles(g.id(), at, "log2_sizes", m.log2_sizes);
  write_doubles(g.id(), at, "residuals", m.residuals);
}

OpModelRecord read_op_model(hid_t parent, const H5Where& where, const std::string& name) {
  const detail::Group g = detail::open_group(parent, where, name);
  const H5Where at = where.child(name);
  OpModelRecord m;
  m.op = detail::read_string_attribute(g.id(), at, "op");
  m.dtype = detail::read_string_attribute(g.id(), at, "dtype");
  m.device_kind = detail::read_string_attribute(g.id(), at, "device_kind");
  m.form = detail::read_string_attribute(g.id(), at, "form");
  m.points = detail::read_int_attribute(g.id(), at, "points");
  m.cv_mape = detail::read_double_attribute(g.id(), at, "cv_mape");
  m.other_cv_mape = detail::read_double_attribute(g.id(), at, "other_cv_mape");
  m.inputs = detail::read_string_dataset(g.id(), at, "inputs").values;
  m.weights = detail::read_double_dataset(g.id(), at, "weights").values;
  m.range_names = detail::read_string_dataset(g.id(), at, "range_names").values;
  m.range_low = detail::read_double_dataset(g.id(), at, "range_low").values;
  m.range_high = detail::read_double_dataset(g.id(), at, "range_high").values;
  if (m.inputs.size() != m.weights.size() || m.range_names.size() != m.range_low.size() ||
      m.range_low.size() != m.range_high.size())
    at.fail("inputs and weights, or range_names and range_low/high, differ in length");
  return m;
}

CollectiveModelRecord read_collective_model(hid_t parent, const H5Where& where,
                                            const std::string& name) {
  const detail::Group g = detail::open_group(parent, where, name);
  const H5Where at = where.child(name);
  CollectiveModelRecord m;
  m.op = detail::read_string_attribute(g.id(), at, "op");
  m.form = detail::read_string_attribute(g.id(), at, "form");
  m.ranks = detail::read_int_attribute(g.id(), at, "ranks");
  m.points = detail::read_int_attribute(g.id(), at, "points");
  m.held_out_mape = detail::read_double_attribute(g.id(), at, "held_out_mape");
  m.min_bytes = detail::read_double_attribute(g.id(), at, "min_bytes");
  m.max_bytes = detail::read_double_attribute(g.id(), at, "max_bytes");
  m.min_ranks = detail::read_int_attribute(g.id(), at, "min_ranks");
  m.max_ranks = detail::read_int_attribute(g.id(), at, "max_ranks");
  m.sources = detail::read_string_attribute(g.id(), at, "sources");
  m.parameters = detail::read_double_dataset(g.id(), at, "parameters").values;
  m.log2_sizes = detail::read_double_dataset(g.id(), at, "log2_sizes").values;
  m.residuals = detail::read_double_dataset(g.id(), at, "residuals").values;
  if (m.form != "curve" && m.form != "rank_count")
    at.fail("form '" + m.form + "'; expected curve or rank_count");
  return m;
}

constexpr const char* kPredictionTimelines = "timeline";

/// Group timeline of /predictions (at `at`) with one dataset per row that has spans.
void write_prediction_timelines(hid_t predictions, const H5Where& at,
                                const std::vector<PredictionRow>& rows) {
  const bool any = std::any_of(rows.begin(), rows.end(),
                               [](const PredictionRow& r) { return !r.timeline.empty(); });
  if (!any) return;
  const detail::Group g = detail::create_group(predictions, at, kPredictionTimelines);
  const H5Where where = at.child(kPredictionTimelines);
  for (const PredictionRow& r : rows)
    if (!r.timeline.empty()) detail::write_timeline(g.id(), where, r.config, r.timeline);
}

void read_prediction_timelines(hid_t predictions, const H5Where& at,
                               std::vector<PredictionRow>& rows) {
  if (!detail::has_link(predictions, at, kPredictionTimelines)) return;
  const detail::Group g = detail::open_group(predictions, at, kPredictionTimelines);
  const H5Where where = at.child(kPredictionTimelines);
  for (PredictionRow& r : rows) r.timeline = detail::read_timeline(g.id(), where, r.config);
}

}  // namespace

void write_model_file(const std::string& path, const ModelSet& models) {
  const H5Where root{path, "/"};
  if (std::filesystem::exists(path))
    root.fail("exists; scaletune never overwrites a file: fit into a new one");
  const detail::File file = detail::create_result_file(path);
  detail::write_provenance(file.id(), root, models.provenance);
  detail::write_dataset(file.id(), root, "inputs", {{models.inputs.size()}, "files", ""},
                        models.inputs);
  const detail::Group ops = detail::create_group(file.id(), root, kOpModels);
  for (const OpModelRecord& m : models.ops) write_op_model(ops.id(), root.child(kOpModels), m);
  const detail::Group coll = detail::create_group(file.id(), root, kCollectiveModels);
  for (const CollectiveModelRecord& m : models.collectives)
    write_collective_model(coll.id(), root.child(kCollectiveModels), m);
  SCALETUNE_H5(root, H5Fflush(file.id(), H5F_SCOPE_GLOBAL));
}

void write_prediction_file(const std::string& path, const Provenance& provenance,
                           const std::vector<PredictionRow>& rows) {
  const H5Where root{path, "/"};
  if (std::filesystem::exists(path))
    root.fail("exists; scaletune never overwrites a file: predict into a new one");
  const detail::File file = detail::create_result_file(path);
  detail::write_provenance(file.id(), root, provenance);
  const detail::Group g = detail::create_group(file.id(), root, "predictions");
  const H5Where at = root.child("predictions");
  std::vector<std::string> ids;
  std::vector<std::int64_t> ranks, critical;
  std::vector<double> step, throughput, compute, exposed, waiting, measured;
  for (const PredictionRow& r : rows) {
    ids.push_back(r.config);
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
  detail::write_dataset(g.id(), at, "config", spec(""), ids);
  detail::write_dataset(g.id(), at, "ranks", spec(""), ranks);
  detail::write_dataset(g.id(), at, "step_time", spec("s"), step);
  detail::write_dataset(g.id(), at, "throughput", spec("samples/s"), throughput);
  detail::write_dataset(g.id(), at, "compute", spec("s"), compute);
  detail::write_dataset(g.id(), at, "exposed_communication", spec("s"), exposed);
  detail::write_dataset(g.id(), at, "waiting", spec("s"), waiting);
  detail::write_dataset(g.id(), at, "critical_rank", spec(""), critical);
  detail::write_dataset(g.id(), at, "measured_step_time", spec("s"), measured);
  write_prediction_timelines(g.id(), at, rows);
  SCALETUNE_H5(root, H5Fflush(file.id(), H5F_SCOPE_GLOBAL));
}

bool is_prediction_file(const std::string& path) {
  const detail::File file = detail::open_result_file(path, H5F_ACC_RDONLY);
  return detail::has_link(file.id(), H5Where{path, "/"}, "predictions");
}

std::vector<PredictionRow> read_prediction_file(const std::string& path) {
  const detail::File file = detail::open_result_file(path, H5F_ACC_RDONLY);
  const H5Where root{path, "/"};
  if (!detail::has_link(file.id(), root, "predictions"))
    root.fail("has no /predictions (written by scaletune predict --out)");
  const detail::Group g = detail::open_group(file.id(), root, "predictions");
  const H5Where at = root.child("predictions");
  const auto ids = detail::read_string_dataset(g.id(), at, "config").values;
  const auto ranks = detail::read_int64_dataset(g.id(), at, "ranks").values;
  const auto critical = detail::read_int64_dataset(g.id(), at, "critical_rank").values;
  const auto step = detail::read_double_dataset(g.id(), at, "step_time").values;
  const auto throughput = detail::read_double_dataset(g.id(), at, "throughput").values;
  const auto compute = detail::read_double_dataset(g.id(), at, "compute").values;
  const auto exposed = detail::read_double_dataset(g.id(), at, "exposed_communication").values;
  const auto waiting = detail::read_double_dataset(g.id(), at, "waiting").values;
  const auto measured = detail::read_double_dataset(g.id(), at, "measured_step_time").values;
  const std::size_t n = ids.size();
  for (std::size_t size : {ranks.size(), critical.size(), step.size(), throughput.size(),
                           compute.size(), exposed.size(), waiting.size(), measured.size()})
    if (size != n) at.fail("its datasets differ in length");
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
                    {}});
  read_prediction_timelines(g.id(), at, rows);
  return rows;
}

ModelSet read_model_file(const std::string& path) {
  const detail::File file = detail::open_result_file(path, H5F_ACC_RDONLY);
  const H5Where root{path, "/"};
  if (!detail::has_link(file.id(), root, kOpModels) ||
      !detail::has_link(file.id(), root, kCollectiveModels))
    root.fail(
        "has no /op_models and /collective_models: not a model file (fitted by scaletune fit)");
  ModelSet models;
  models.provenance = detail::read_provenance(file.id(), root);
  models.inputs = detail::read_string_dataset(file.id(), root, "inputs").values;
  const detail::Group ops = detail::open_group(file.id(), root, kOpModels);
  for (const std::string& name : detail::link_names(ops.id(), root.child(kOpModels)))
    models.ops.push_back(read_op_model(ops.id(), root.child(kOpModels), name));
  const detail::Group coll = detail::open_group(file.id(), root, kCollectiveModels);
  for (const std::string& name : detail::link_names(coll.id(), root.child(kCollectiveModels)))
    models.collectives.push_back(
        read_collective_model(coll.id(), root.child(kCollectiveModels), name));
  return models;
}

}  // namespace scaletune::results
