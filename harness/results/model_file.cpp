#include "harness/results/model_file.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "harness/results/detail/damage_guard.hpp"
#include "harness/results/detail/file_access.hpp"
#include "harness/results/detail/file_image.hpp"
#include "harness/results/detail/h5_attribute.hpp"
#include "harness/results/detail/h5_dataset.hpp"
#include "harness/results/detail/h5_group.hpp"
#include "harness/results/detail/provenance_io.hpp"
#include "harness/results/result_error.hpp"

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
  if (!m.other_form.empty()) detail::write_attribute(g.id(), at, "other_form", m.other_form);
  write_texts(g.id(), at, "inputs", m.inputs);
  write_doubles(g.id(), at, "weights", m.weights);
  write_texts(g.id(), at, "range_names", m.range_names);
  write_doubles(g.id(), at, "range_low", m.range_low);
  write_doubles(g.id(), at, "range_high", m.range_high);
  if (m.form != "power_law_rbf") return;
  detail::write_attribute(g.id(), at, "kernel_gamma", m.kernel_gamma);
  write_doubles(g.id(), at, "kernel_offset", m.kernel_offset);
  write_doubles(g.id(), at, "kernel_scale", m.kernel_scale);
  write_doubles(g.id(), at, "kernel_centers", m.kernel_centers);
  write_doubles(g.id(), at, "kernel_alpha", m.kernel_alpha);
}

bool all_finite(const std::vector<double>& v) {
  return std::ranges::all_of(v, [](double x) { return std::isfinite(x); });
}

/// Fails unless `name` holds `expected` values.
void expect_size(const H5Where& at, const char* name, std::size_t size, std::size_t expected,
                 const std::string& what) {
  if (size != expected)
    at.fail(std::string(name) + " holds " + std::to_string(size) + " values; expected " +
            std::to_string(expected) + " (" + what + ")");
}

/// The form, its inputs and weights must agree (autotune/op_model.hpp): affine reads "1",
/// "flops", "bytes" with weights >= 0; power_law and power_law_rbf "1", then "log:..." and
/// "reuse:..." inputs; every weight finite.
void check_op_form(const H5Where& at, const OpModelRecord& m) {
  const bool affine = m.form == "affine";
  const auto known = [](const std::string& form) {
    return form == "affine" || form == "power_law" || form == "power_law_rbf";
  };
  if (!known(m.form)) at.fail("form '" + m.form + "'; expected affine, power_law or power_law_rbf");
  if (!m.other_form.empty() && !known(m.other_form))
    at.fail("other_form '" + m.other_form + "'; expected affine, power_law or power_law_rbf");
  if (affine && m.inputs != std::vector<std::string>{"1", "flops", "bytes"})
    at.fail("an affine model reads the inputs 1, flops, bytes; this one reads " +
            std::to_string(m.inputs.size()) + " other inputs");
  if (!affine && (m.inputs.size() < 2 || m.inputs.front() != "1" ||
                  !std::all_of(m.inputs.begin() + 1, m.inputs.end(), [](const std::string& n) {
                    return n.starts_with("log:") || n.starts_with("reuse:");
                  })))
    at.fail("a " + m.form + " model reads the inputs 1, then log:<field> and reuse:<bin>");
  if (!all_finite(m.weights) ||
      (affine && !std::ranges::all_of(m.weights, [](double w) { return w >= 0.0; })))
    at.fail(affine ? "weights must be finite and >= 0 (t = c0 + c1 FLOPs + c2 bytes, c >= 0)"
                   : "weights must be finite");
}

/// The residual of a power_law_rbf model: its sizes must agree with the inputs, and its
/// values be finite with a kernel width and scales > 0.
void read_kernel(hid_t g, const H5Where& at, OpModelRecord& m) {
  m.kernel_gamma = detail::read_double_attribute(g, at, "kernel_gamma");
  m.kernel_offset = detail::read_double_dataset(g, at, "kernel_offset").values;
  m.kernel_scale = detail::read_double_dataset(g, at, "kernel_scale").values;
  m.kernel_centers = detail::read_double_dataset(g, at, "kernel_centers").values;
  m.kernel_alpha = detail::read_double_dataset(g, at, "kernel_alpha").values;
  const std::size_t d = m.inputs.size() - 1;  // check_op_form: at least 2 inputs
  const std::string per_input = "one per input but 1";
  expect_size(at, "kernel_offset", m.kernel_offset.size(), d, per_input);
  expect_size(at, "kernel_scale", m.kernel_scale.size(), d, per_input);
  if (m.kernel_alpha.empty()) at.fail("kernel_alpha is empty; expected one value per center");
  expect_size(at, "kernel_centers", m.kernel_centers.size(), m.kernel_alpha.size() * d,
              std::to_string(d) + " per kernel_alpha value");
  if (!(std::isfinite(m.kernel_gamma) && m.kernel_gamma > 0.0) || !all_finite(m.kernel_offset) ||
      !all_finite(m.kernel_centers) || !all_finite(m.kernel_alpha) ||
      !std::ranges::all_of(m.kernel_scale, [](double x) { return std::isfinite(x) && x > 0.0; }))
    at.fail(
        "kernel_gamma and kernel_scale must be finite and > 0, and kernel_offset, "
        "kernel_centers and kernel_alpha finite");
}

void write_collective_model(hid_t parent, const H5Where& where, const CollectiveModelRecord& m) {
  const std::string name =
      m.op + ":" + (m.form == "rank_count" ? std::string("ranks") : std::to_string(m.ranks)) +
      (m.nodes > 1 ? ":" + std::to_string(m.nodes) + "nodes" : "");
  const detail::Group g = detail::create_group(parent, where, name);
  const H5Where at = where.child(name);
  detail::write_attribute(g.id(), at, "op", m.op);
  detail::write_attribute(g.id(), at, "form", m.form);
  detail::write_attribute(g.id(), at, "ranks", m.ranks);
  detail::write_attribute(g.id(), at, "nodes", m.nodes);
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
  if (detail::has_attribute(g.id(), at, "other_form"))
    m.other_form = detail::read_string_attribute(g.id(), at, "other_form");
  m.inputs = detail::read_string_dataset(g.id(), at, "inputs").values;
  m.weights = detail::read_double_dataset(g.id(), at, "weights").values;
  m.range_names = detail::read_string_dataset(g.id(), at, "range_names").values;
  m.range_low = detail::read_double_dataset(g.id(), at, "range_low").values;
  m.range_high = detail::read_double_dataset(g.id(), at, "range_high").values;
  if (m.inputs.size() != m.weights.size() || m.range_names.size() != m.range_low.size() ||
      m.range_low.size() != m.range_high.size())
    at.fail("inputs and weights, or range_names and range_low/high, differ in length");
  check_op_form(at, m);
  if (m.form == "power_law_rbf") read_kernel(g.id(), at, m);
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
  // Files written before curves knew their nodes: 1.
  m.nodes = detail::has_attribute(g.id(), at, "nodes")
                ? detail::read_int_attribute(g.id(), at, "nodes")
                : 1;
  if (m.nodes < 1) at.fail("nodes " + std::to_string(m.nodes) + "; expected >= 1");
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

}  // namespace

void write_model_file(const std::string& path, const ModelSet& models) {
  const H5Where root{path, "/"};
  if (std::filesystem::exists(path))
    throw ResultError(path + " exists; scaletune never overwrites a file: fit into a new one");
  const detail::File file = detail::create_memory_file(path);
  detail::write_provenance(file.id(), root, models.provenance);
  detail::write_dataset(file.id(), root, "inputs", {{models.inputs.size()}, "files", ""},
                        models.inputs);
  const detail::Group ops = detail::create_group(file.id(), root, kOpModels);
  for (const OpModelRecord& m : models.ops) write_op_model(ops.id(), root.child(kOpModels), m);
  const detail::Group coll = detail::create_group(file.id(), root, kCollectiveModels);
  for (const CollectiveModelRecord& m : models.collectives)
    write_collective_model(coll.id(), root.child(kCollectiveModels), m);
  detail::replace_with_image(file.id(), path);
}

namespace {

ModelSet read_models(const std::string& path) {
  const detail::File file =
      detail::open_result_file(path, H5F_ACC_RDONLY, "model file written by scaletune fit");
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

}  // namespace

bool is_model_file(const std::string& path) {
  return detail::read_guarded(path, [&] {
    const detail::File file = detail::open_result_file(path, H5F_ACC_RDONLY);
    const H5Where root{path, "/"};
    return detail::has_link(file.id(), root, kOpModels) &&
           detail::has_link(file.id(), root, kCollectiveModels);
  });
}

ModelSet read_model_file(const std::string& path) {
  return detail::read_guarded(path, [&] { return read_models(path); });
}

}  // namespace scaletune::results
