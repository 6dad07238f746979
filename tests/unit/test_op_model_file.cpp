// An op model with a kernel-ridge residual survives the model file: written, read back and
// turned into a PerformanceModel it times ops as the fitted model does; a file whose residual
// does not match its inputs (or a form its inputs and weights) is refused naming the group; fit
// leaves out profile rows of a time that is not finite and > 0 and says how many.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "autotune/model_fitting.hpp"
#include "autotune/op_model.hpp"
#include "autotune/performance_model.hpp"
#include "harness/results/model_file.hpp"
#include "harness/results/result_error.hpp"
#include "tests/unit/test_results_data.hpp"

namespace scaletune::autotune {
namespace {

/// An elementwise op of n elements, as the profile records it.
trace::ComputeOp elementwise(std::int64_t n) {
  trace::ComputeOp op;
  op.op = "scale";
  op.dtype = "fp32";
  op.shape = {{"numel", n}};
  op.flops = double(n);
  op.bytes = 8.0 * double(n);
  return op;
}

/// A model of a bumped time (twice as slow around 64 Ki elements): the residual form.
OpModel bumped_model() {
  std::vector<OpPoint> points;
  for (int i = 0; i <= 28; ++i) {
    const auto n = static_cast<std::int64_t>(std::llround(std::exp2(10.0 + 0.5 * i)));
    const double z = (std::log2(double(n)) - 16.0) / 3.0;
    points.push_back({elementwise(n), 1e-9 * double(n) * (1.0 + std::exp(-z * z))});
  }
  return fit_op_model(points, "host");
}

results::ModelSet set_of(const OpModel& m) {
  results::ModelSet models;
  models.provenance = results::test::sample_provenance();
  models.inputs = {"profile.h5"};
  models.ops = {record_of(m)};
  return models;
}

TEST(OpModelFile, AResidualModelTimesOpsAsFitted) {
  const OpModel fitted = bumped_model();
  ASSERT_EQ(fitted.form, OpModelForm::power_law_rbf);
  const results::test::TempDir dir;
  results::write_model_file(dir.file("m.h5"), set_of(fitted));
  const PerformanceModel read(results::read_model_file(dir.file("m.h5")));
  for (std::int64_t n : {3000, 70000, 1 << 22}) {
    const trace::ComputeOp op = elementwise(n);
    EXPECT_DOUBLE_EQ(read.op_time_s(op), fitted.time_s(op)) << "n = " << n;
  }
  // The next-best form survives the file with its error.
  const results::ModelSet back = results::read_model_file(dir.file("m.h5"));
  const OpModel again = op_model_of(back.ops.front());
  ASSERT_TRUE(again.runner_up.has_value());
  EXPECT_EQ(*again.runner_up, *fitted.runner_up);
  EXPECT_EQ(again.other_cv_mape, fitted.other_cv_mape);
}

TEST(OpModelFile, AResidualOfTheWrongSizeIsRefused) {
  OpModel broken = bumped_model();
  broken.residual.offset.pop_back();
  const results::test::TempDir dir;
  results::write_model_file(dir.file("m.h5"), set_of(broken));
  try {
    static_cast<void>(results::read_model_file(dir.file("m.h5")));
    FAIL() << "read a residual of the wrong size";
  } catch (const results::ResultError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("scale:fp32:host"), std::string::npos) << what;
    EXPECT_NE(what.find("kernel_offset holds 2 values; expected 3 (one per input but 1)"),
              std::string::npos)
        << what;
  }
}

TEST(OpModelFile, AResidualOfNonFiniteOrZeroValuesIsRefused) {
  for (int field = 0; field < 3; ++field) {
    OpModel broken = bumped_model();
    if (field == 0) broken.residual.alpha[2] = std::nan("");
    if (field == 1) broken.residual.scale[0] = 0.0;
    if (field == 2) broken.residual.gamma = -1.0;
    const results::test::TempDir dir;
    results::write_model_file(dir.file("m.h5"), set_of(broken));
    try {
      static_cast<void>(results::read_model_file(dir.file("m.h5")));
      ADD_FAILURE() << "read a broken residual, field " << field;
    } catch (const results::ResultError& e) {
      EXPECT_NE(std::string(e.what()).find("kernel_gamma and kernel_scale must be finite and > 0"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(OpModelFile, AFormItsInputsOrWeightsDoNotFitIsRefused) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"spline", "form 'spline'; expected affine, power_law or power_law_rbf"},
      {"affine", "an affine model reads the inputs 1, flops, bytes"},
      {"negative", "weights must be finite and >= 0"}};
  for (const auto& [change, message] : cases) {
    results::ModelSet models = set_of(bumped_model());
    results::OpModelRecord& r = models.ops.front();
    if (change == "spline") r.form = "spline";
    if (change == "affine") r.form = "affine";  // a power law's log inputs under affine
    if (change == "negative") {
      r.form = "affine";
      r.inputs = {"1", "flops", "bytes"};
      r.weights = {-1e-6, 1e-9, 0.0};
    }
    const results::test::TempDir dir;
    results::write_model_file(dir.file("m.h5"), models);
    try {
      static_cast<void>(results::read_model_file(dir.file("m.h5")));
      ADD_FAILURE() << "read a model with " << change;
    } catch (const results::ResultError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("scale:fp32:host"), std::string::npos) << e.what();
    }
  }
}

TEST(OpModelFile, FitLeavesOutTimesNotFiniteAndPositiveAndSaysSo) {
  results::ResultSet profile;
  for (int i = 0; i < 12; ++i) {
    const std::int64_t n = std::int64_t{1024} << i;
    profile.ops.push_back({.op = "scale",
                           .dtype = "fp32",
                           .device = "host-core:0",
                           .shape = "numel=" + std::to_string(n),
                           .time_s = 1e-9 * double(n),
                           .flops = double(n),
                           .bytes = 8.0 * double(n)});
  }
  profile.ops[3].time_s = std::nan("");
  profile.ops[5].time_s = std::numeric_limits<double>::infinity();
  profile.ops[7].time_s = 0.0;
  const FitResult fit = fit_models({profile});
  ASSERT_EQ(fit.models.ops.size(), 1u);
  EXPECT_EQ(fit.models.ops.front().points, 9);
  ASSERT_FALSE(fit.report.empty());
  EXPECT_NE(fit.report.front().note.find("3 rows of a time not finite and > 0 left out"),
            std::string::npos)
      << fit.report.front().note;
  EXPECT_NE(fit.report.front().note.find("next best "), std::string::npos);
}

}  // namespace
}  // namespace scaletune::autotune
