#pragma once
// Models of one op kind's time from its shape, fitted on an op profile (/ops) and used for
// shapes that were never profiled (Lin et al., TPDS 2025, section 4.1: per-op models; the
// paper fits MLPs, here two forms are fitted and cross-validation picks one):
// - affine: t = c0 + c1 FLOPs + c2 bytes with c >= 0, a per-call overhead plus the op's work at
//   a sustained compute rate and bandwidth (a roofline's two bounds added rather than maxed,
//   which CPU kernels and small GPU kernels follow), fitted by non-negative least squares on
//   the relative error (dlib::solve_qp_box_constrained);
// - power_law: ln t = w . (1, ln(1 + shape field)..., ln(1 + FLOPs), ln(1 + bytes)[, the
//   17-bin reuse histogram of embedding lookups]), ridge least squares (Eigen), which follows
//   the shape-dependent efficiency of tiled kernels;
// - power_law_rbf: the power law plus a Gaussian-kernel ridge regression of its log residuals
//   over the same inputs (rbf_residual.hpp), which follows what the trend misses between
//   profiled shapes.
// Each model keeps its k-fold cross-validated mean absolute percentage error and the range of
// every feature it saw, so a prediction can say when it extrapolates.

#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "autotune/rbf_residual.hpp"
#include "harness/trace/step_trace.hpp"

namespace scaletune::autotune {

/// One measured call of an op: its record and median time.
struct OpPoint {
  trace::ComputeOp op;  ///< kind, shape fields, dtype, FLOPs, bytes, reuse histogram
  double time_s = 0.0;  ///< > 0
};

/// Which form a model takes.
enum class OpModelForm { affine, power_law, power_law_rbf };
/// Every form, simplest first (the order fit_op_model prefers them in on a tie).
inline constexpr std::array<OpModelForm, 3> kOpModelForms = {
    OpModelForm::affine, OpModelForm::power_law, OpModelForm::power_law_rbf};

/// "affine", "power_law", "power_law_rbf"; op_model_form_from reads them back (throws
/// std::invalid_argument).
const char* op_model_form_name(OpModelForm form);
OpModelForm op_model_form_from(const std::string& name);

/// A fitted model of one op kind and element type on one device kind.
struct OpModel {
  std::string op;           ///< op kind
  std::string dtype;        ///< element type of the op's activations
  std::string device_kind;  ///< "host" or "cuda"
  OpModelForm form = OpModelForm::affine;
  /// Input names in weight order: affine "1", "flops", "bytes"; power_law(_rbf) "1", then
  /// "log:<field>" per shape field, "log:flops", "log:bytes", and "reuse:<bin>" for lookups
  std::vector<std::string> inputs;
  std::vector<double> weights;  ///< [inputs]
  /// power_law_rbf: the correction of ln t over the inputs but "1"; empty for the other forms
  RbfResidual residual;
  /// The range of every shape field, FLOPs and bytes over the fitted points, as "name" with
  /// [low, high]; a prediction outside it extrapolates
  std::vector<std::string> range_names;
  std::vector<double> range_low, range_high;
  int points = 0;              ///< fitted points
  double cv_mape = 0.0;        ///< k-fold cross-validated mean absolute percentage error, fraction
  double other_cv_mape = 0.0;  ///< the best other form's, for the report
  /// That other form; none in model files written before it was stored
  std::optional<OpModelForm> runner_up;

  /// Predicted time of `call` (an op of this model's kind), s; 0 for a call of no FLOPs and no
  /// bytes (an empty shard). Throws std::invalid_argument naming the field when `call` lacks a
  /// shape field the model reads.
  double time_s(const trace::ComputeOp& call) const;
  /// "name=value (profiled low..high)" for every range the call falls outside; empty inside.
  std::vector<std::string> extrapolation(const trace::ComputeOp& call) const;
  /// Whether the call falls outside some range (extrapolation() is not empty), without
  /// formatting a message.
  bool extrapolates(const trace::ComputeOp& call) const;

 private:
  /// Value of range `i` (a shape field, flops or bytes) for `call`.
  double range_value(const trace::ComputeOp& call, std::size_t i) const;
};

/// Fits every form to `points` (one op kind and dtype, at least 4 distinct shapes, times > 0)
/// and keeps the one with the lowest `folds`-fold cross-validated MAPE (a richer form only when
/// it is lower by more than 0.1 percentage point), refitted on every point.
/// The folds hold out whole shapes (every point of a shape, e.g. its timings on several ranks,
/// in one fold; shapes shuffled with a fixed seed), so the error is that on shapes the fit never
/// saw. Throws std::invalid_argument naming the op when the points have fewer than 4 shapes, mix
/// op kinds or dtypes, or lack a shape field the first one has.
OpModel fit_op_model(std::span<const OpPoint> points, const std::string& device_kind,
                     int folds = 5);

/// Mean absolute percentage error of `model` on `points`, a fraction. Throws
/// std::invalid_argument when points is empty.
double op_model_mape(const OpModel& model, std::span<const OpPoint> points);

/// How far the copies of a shape (its timings on several ranks, or in several profiles) lie
/// from each other: the mean, over every point of a shape timed more than once, of |t - m| / t
/// with m the mean time of its shape; a fraction. A prediction at each shape's mean misses its
/// points by this much, so a held-out error near it is mostly the measurements' noise. None
/// when no shape was timed twice.
std::optional<double> copy_spread(std::span<const OpPoint> points);

}  // namespace scaletune::autotune
