#include "autotune/op_model.hpp"

#include <dlib/optimization.h>

#include <Eigen/Dense>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace scaletune::autotune {
namespace {

/// Shape fields only the profile sets (the law its lookups drew indices from): never an input.
bool is_input_field(const std::string& name) {
  return name != "zipf_milli";
}

double field_value(const trace::ComputeOp& op, std::string_view name) {
  for (const trace::ShapeField& f : op.shape)
    if (f.name == name) return static_cast<double>(f.value);
  throw std::invalid_argument("op model of " + op.op + ": the op has no shape field " +
                              std::string(name) + " (" + trace::shape_text(op.shape) + ")");
}

std::vector<std::string> field_names(const trace::ComputeOp& op) {
  std::vector<std::string> out;
  for (const trace::ShapeField& f : op.shape)
    if (is_input_field(f.name)) out.push_back(f.name);
  return out;
}

/// Calls `input(i, value)` for the inputs of `form` for `op` in weight order (what the weights
/// multiply), without building a vector: time_s runs it per described op.
template <class Input>
void for_each_input(OpModelForm form, const std::vector<std::string>& names,
                    const trace::ComputeOp& op, Input input) {
  if (form == OpModelForm::affine) {
    input(0, 1.0);
    input(1, op.flops);
    input(2, op.bytes);
    return;
  }
  std::size_t i = 0;
  input(i++, 1.0);
  for (const std::string& n : names)
    if (n.starts_with("log:") && n != "log:flops" && n != "log:bytes")
      input(i++, std::log1p(std::max(0.0, field_value(op, std::string_view(n).substr(4)))));
  input(i++, std::log1p(op.flops));
  input(i++, std::log1p(op.bytes));
  for (const std::string& n : names)
    if (n.starts_with("reuse:")) {
      std::size_t bin = 0;
      std::from_chars(n.data() + 6, n.data() + n.size(), bin);
      input(i++, bin < op.reuse_histogram.size() ? op.reuse_histogram[bin] : 0.0);
    }
}

/// The inputs of `form` for `op`, in weight order.
std::vector<double> inputs_of(OpModelForm form, const std::vector<std::string>& names,
                              const trace::ComputeOp& op) {
  std::vector<double> x;
  for_each_input(form, names, op, [&](std::size_t, double v) { x.push_back(v); });
  return x;
}

/// The input names of `form` for points like `first`.
std::vector<std::string> input_names(OpModelForm form, const trace::ComputeOp& first) {
  if (form == OpModelForm::affine) return {"1", "flops", "bytes"};
  std::vector<std::string> names = {"1"};
  for (const std::string& f : field_names(first)) names.push_back("log:" + f);
  names.push_back("log:flops");
  names.push_back("log:bytes");
  if (first.reuse_histogram.size() == 17)
    for (int b = 0; b < 17; ++b) names.push_back("reuse:" + std::to_string(b));
  return names;
}

/// The model's time from the dot product of its weights and inputs (plus, for power_law_rbf,
/// the residual at them), s.
double time_of_dot(OpModelForm form, double dot) {
  if (form != OpModelForm::affine) return std::exp(dot);
  return std::max(dot, 1e-12);
}

/// A form's fitted parameters: the weights of its inputs and, for power_law_rbf, the residual.
struct FittedForm {
  std::vector<double> weights;
  RbfResidual residual;
};

/// The inputs the residual reads: all but the constant first one.
std::span<const double> residual_inputs(const std::vector<double>& x) {
  return std::span<const double>(x).subspan(1);
}

double evaluate(OpModelForm form, const std::vector<double>& weights, const RbfResidual& residual,
                const std::vector<double>& x) {
  const double dot = std::inner_product(weights.begin(), weights.end(), x.begin(), 0.0);
  if (form != OpModelForm::power_law_rbf) return time_of_dot(form, dot);
  return time_of_dot(form, dot + residual.value(residual_inputs(x)));
}

double evaluate(OpModelForm form, const FittedForm& f, const std::vector<double>& x) {
  return evaluate(form, f.weights, f.residual, x);
}

/// c >= 0 minimising sum ((c . x_i - t_i) / t_i)^2: a box-constrained QP on scaled columns.
std::vector<double> fit_affine(const std::vector<std::vector<double>>& x,
                               const std::vector<double>& t) {
  const long p = static_cast<long>(x.front().size());
  std::vector<double> scale(static_cast<std::size_t>(p), 0.0);
  for (std::size_t i = 0; i < x.size(); ++i)
    for (long j = 0; j < p; ++j) scale[j] = std::max(scale[j], std::abs(x[i][j] / t[i]));
  for (double& s : scale) s = s > 0.0 ? s : 1.0;
  dlib::matrix<double> q = dlib::zeros_matrix<double>(p, p);
  dlib::matrix<double, 0, 1> b = dlib::zeros_matrix<double>(p, 1);
  for (std::size_t i = 0; i < x.size(); ++i)
    for (long j = 0; j < p; ++j) {
      const double aj = x[i][j] / t[i] / scale[j];
      b(j) -= aj;
      for (long k = 0; k < p; ++k) q(j, k) += aj * x[i][k] / t[i] / scale[k];
    }
  dlib::matrix<double, 0, 1> alpha = dlib::zeros_matrix<double>(p, 1);
  const dlib::matrix<double, 0, 1> lower = dlib::zeros_matrix<double>(p, 1);
  const dlib::matrix<double, 0, 1> upper = dlib::uniform_matrix<double>(p, 1, 1e12);
  dlib::solve_qp_box_constrained(q, b, alpha, lower, upper, 1e-12, 100000);
  std::vector<double> w(static_cast<std::size_t>(p));
  for (long j = 0; j < p; ++j) w[j] = alpha(j) / scale[j];
  return w;
}

/// Ridge least squares of ln t on x (a small ridge keeps constant or collinear inputs finite).
std::vector<double> fit_power_law(const std::vector<std::vector<double>>& x,
                                  const std::vector<double>& t) {
  const auto n = static_cast<Eigen::Index>(x.size());
  const auto p = static_cast<Eigen::Index>(x.front().size());
  Eigen::MatrixXd a(n, p);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < p; ++j) a(i, j) = x[i][j];
    y(i) = std::log(t[i]);
  }
  Eigen::MatrixXd gram = a.transpose() * a;
  const double ridge = 1e-6 * std::max(1.0, gram.trace() / static_cast<double>(p));
  gram.diagonal().array() += ridge;
  const Eigen::VectorXd w = gram.ldlt().solve(a.transpose() * y);
  return {w.data(), w.data() + p};
}

/// The weights of `form` fitted to x and t, then scaled so that the mean of measured over
/// predicted time on the fitted points is 1 (Duan's smearing estimate: N. Duan, "Smearing
/// Estimate: A Nonparametric Retransformation Method", JASA 78(383), 1983). Both fits are
/// biased low for the mean: the power law predicts the geometric mean of a shape's times, and
/// least squares on the relative error favours predictions below the times; a step is a sum of
/// ops, so its prediction needs each op's mean. The first input is the constant 1.
/// power_law_rbf adds the residual of the power law's log times (rbf_residual.hpp).
FittedForm fit_form(OpModelForm form, const std::vector<std::vector<double>>& x,
                    const std::vector<double>& t) {
  FittedForm f{form == OpModelForm::affine ? fit_affine(x, t) : fit_power_law(x, t), {}};
  if (form == OpModelForm::power_law_rbf) {
    std::vector<std::vector<double>> inputs;
    std::vector<double> residuals;
    for (std::size_t i = 0; i < x.size(); ++i) {
      inputs.emplace_back(x[i].begin() + 1, x[i].end());
      residuals.push_back(std::log(t[i]) - std::log(evaluate(OpModelForm::power_law, f, x[i])));
    }
    f.residual = fit_rbf_residual(std::move(inputs), std::move(residuals));
  }
  double ratio = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) ratio += t[i] / evaluate(form, f, x[i]);
  ratio /= static_cast<double>(x.size());
  if (form != OpModelForm::affine)
    f.weights.front() += std::log(ratio);
  else
    for (double& v : f.weights) v *= ratio;
  return f;
}

/// Index of each point's shape among the distinct shapes of `points`, in first-seen order: the
/// unit cross-validation holds out, so the copies of one shape timed on several ranks never sit
/// on both sides of a fold (which would measure the noise between ranks, not new shapes).
std::vector<std::size_t> shape_groups(std::span<const OpPoint> points) {
  std::map<std::string, std::size_t> index;
  std::vector<std::size_t> out;
  for (const OpPoint& p : points)
    out.push_back(index.try_emplace(trace::shape_text(p.op.shape), index.size()).first->second);
  return out;
}

/// k-fold cross-validated MAPE of `form` on the points' inputs x and times t, the folds made of
/// whole shapes (`groups`: each point's shape, shape_groups) after a fixed shuffle.
double cross_validate(OpModelForm form, const std::vector<std::vector<double>>& x,
                      const std::vector<double>& t, const std::vector<std::size_t>& groups,
                      int folds) {
  const std::size_t shapes = *std::ranges::max_element(groups) + 1;
  std::vector<std::size_t> order(shapes);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), std::mt19937_64(7));
  std::vector<std::size_t> fold_of(shapes);
  for (std::size_t i = 0; i < shapes; ++i) fold_of[order[i]] = i;
  const auto k = static_cast<std::size_t>(std::clamp<int>(folds, 2, static_cast<int>(shapes)));
  for (std::size_t& f : fold_of) f %= k;
  double error = 0.0;
  for (std::size_t fold = 0; fold < k; ++fold) {
    std::vector<std::vector<double>> fx;
    std::vector<double> ft;
    for (std::size_t i = 0; i < x.size(); ++i)
      if (fold_of[groups[i]] != fold) {
        fx.push_back(x[i]);
        ft.push_back(t[i]);
      }
    const FittedForm fitted = fit_form(form, fx, ft);
    for (std::size_t i = 0; i < x.size(); ++i)
      if (fold_of[groups[i]] == fold) error += std::abs(evaluate(form, fitted, x[i]) - t[i]) / t[i];
  }
  return error / static_cast<double>(x.size());
}

/// The form of least cross-validated error, a later (richer) form of kOpModelForms taken only
/// when it beats the earlier ones by more than kRicherFormMargin: on data an earlier form fits
/// exactly, a richer one ties within rounding and should not win by it.
OpModelForm chosen_form(const std::map<OpModelForm, double>& errors) {
  constexpr double kRicherFormMargin = 1e-3;
  OpModelForm best = kOpModelForms.front();
  for (OpModelForm form : kOpModelForms)
    if (errors.at(form) < errors.at(best) - kRicherFormMargin) best = form;
  return best;
}

/// The form of least error other than `chosen`.
OpModelForm runner_up(const std::map<OpModelForm, double>& errors, OpModelForm chosen) {
  OpModelForm out = chosen;
  double least = std::numeric_limits<double>::infinity();
  for (const auto& [form, error] : errors)
    if (form != chosen && error < least) {
      least = error;
      out = form;
    }
  return out;
}

void check_points(std::span<const OpPoint> points) {
  const std::size_t shapes = points.empty() ? 0 : std::ranges::max(shape_groups(points)) + 1;
  if (shapes < 4)
    throw std::invalid_argument(
        "op model of " + (points.empty() ? std::string("an op") : points.front().op.op) + ": " +
        std::to_string(points.size()) + " points of " + std::to_string(shapes) +
        " shapes; a model needs at least 4 profiled shapes");
  for (const OpPoint& p : points) {
    if (p.op.op != points.front().op.op || p.op.dtype != points.front().op.dtype)
      throw std::invalid_argument("op model of " + points.front().op.op + " " +
                                  points.front().op.dtype + ": a point of " + p.op.op + " " +
                                  p.op.dtype);
    if (!(p.time_s > 0.0) || !std::isfinite(p.time_s))
      throw std::invalid_argument("op model of " + p.op.op + ": a time of " +
                                  std::to_string(p.time_s) + " s; expected > 0");
  }
}

void set_ranges(OpModel& model, std::span<const OpPoint> points) {
  model.range_names = field_names(points.front().op);
  model.range_names.push_back("flops");
  model.range_names.push_back("bytes");
  const auto value = [](const trace::ComputeOp& op, const std::string& name) {
    if (name == "flops") return op.flops;
    if (name == "bytes") return op.bytes;
    return field_value(op, name);
  };
  for (const std::string& name : model.range_names) {
    double lo = value(points.front().op, name), hi = lo;
    for (const OpPoint& p : points) {
      lo = std::min(lo, value(p.op, name));
      hi = std::max(hi, value(p.op, name));
    }
    model.range_low.push_back(lo);
    model.range_high.push_back(hi);
  }
}

}  // namespace

const char* op_model_form_name(OpModelForm form) {
  switch (form) {
    case OpModelForm::affine:
      return "affine";
    case OpModelForm::power_law:
      return "power_law";
    case OpModelForm::power_law_rbf:
      return "power_law_rbf";
  }
  return "?";
}

OpModelForm op_model_form_from(const std::string& name) {
  for (OpModelForm form : kOpModelForms)
    if (name == op_model_form_name(form)) return form;
  throw std::invalid_argument("op model form '" + name +
                              "'; expected affine, power_law or power_law_rbf");
}

double OpModel::time_s(const trace::ComputeOp& call) const {
  // No FLOPs and no bytes (an empty shard's update, numel 0): no work. A power law would read
  // its logs as log(1) = 0 and answer its intercept, milliseconds for a fitted slope near 1.
  if (call.flops == 0.0 && call.bytes == 0.0) return 0.0;
  if (form == OpModelForm::power_law_rbf)
    return evaluate(form, weights, residual, inputs_of(form, inputs, call));
  double dot = 0.0;
  for_each_input(form, inputs, call, [&](std::size_t i, double v) { dot += weights.at(i) * v; });
  return time_of_dot(form, dot);
}

double OpModel::range_value(const trace::ComputeOp& call, std::size_t i) const {
  const std::string& name = range_names[i];
  return name == "flops" ? call.flops : name == "bytes" ? call.bytes : field_value(call, name);
}

bool OpModel::extrapolates(const trace::ComputeOp& call) const {
  for (std::size_t i = 0; i < range_names.size(); ++i) {
    const double v = range_value(call, i);
    if (!(v >= range_low[i] && v <= range_high[i])) return true;
  }
  return false;
}

std::vector<std::string> OpModel::extrapolation(const trace::ComputeOp& call) const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < range_names.size(); ++i) {
    const double v = range_value(call, i);
    if (v >= range_low[i] && v <= range_high[i]) continue;
    std::ostringstream text;
    text << range_names[i] << "=" << v << " (profiled " << range_low[i] << ".." << range_high[i]
         << ")";
    out.push_back(text.str());
  }
  return out;
}

OpModel fit_op_model(std::span<const OpPoint> points, const std::string& device_kind, int folds) {
  check_points(points);
  OpModel best;
  best.op = points.front().op.op;
  best.dtype = points.front().op.dtype;
  best.device_kind = device_kind;
  best.points = static_cast<int>(points.size());
  std::vector<double> t;
  for (const OpPoint& p : points) t.push_back(p.time_s);
  const std::vector<std::size_t> groups = shape_groups(points);
  std::map<OpModelForm, double> errors;
  for (OpModelForm form : kOpModelForms) {
    const std::vector<std::string> names = input_names(form, points.front().op);
    std::vector<std::vector<double>> x;
    for (const OpPoint& p : points) x.push_back(inputs_of(form, names, p.op));
    errors[form] = cross_validate(form, x, t, groups, folds);
  }
  best.form = chosen_form(errors);
  best.inputs = input_names(best.form, points.front().op);
  std::vector<std::vector<double>> x;
  for (const OpPoint& p : points) x.push_back(inputs_of(best.form, best.inputs, p.op));
  FittedForm fitted = fit_form(best.form, x, t);
  best.weights = std::move(fitted.weights);
  best.residual = std::move(fitted.residual);
  best.cv_mape = errors[best.form];
  best.runner_up = runner_up(errors, best.form);
  best.other_cv_mape = errors[*best.runner_up];
  set_ranges(best, points);
  return best;
}

double op_model_mape(const OpModel& model, std::span<const OpPoint> points) {
  if (points.empty()) throw std::invalid_argument("op_model_mape: no points");
  double error = 0.0;
  for (const OpPoint& p : points) error += std::abs(model.time_s(p.op) - p.time_s) / p.time_s;
  return error / static_cast<double>(points.size());
}

std::optional<double> copy_spread(std::span<const OpPoint> points) {
  const std::vector<std::size_t> groups = shape_groups(points);
  const std::size_t shapes = groups.empty() ? 0 : std::ranges::max(groups) + 1;
  std::vector<double> sum(shapes, 0.0);
  std::vector<int> count(shapes, 0);
  for (std::size_t i = 0; i < points.size(); ++i) {
    sum[groups[i]] += points[i].time_s;
    ++count[groups[i]];
  }
  double spread = 0.0;
  int copies = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (count[groups[i]] < 2) continue;
    spread += std::abs(points[i].time_s - sum[groups[i]] / count[groups[i]]) / points[i].time_s;
    ++copies;
  }
  if (copies == 0) return std::nullopt;
  return spread / copies;
}

}  // namespace scaletune::autotune
