// Op models on real kernel timings: NeuSight's PyTorch fp32 GEMMs (torch.nn.Linear and
// torch.bmm) on an A100 and an H100 (shared/data/kernels), fitted on every other distinct
// shape and checked on the shapes left out; and the two forms on synthetic times whose law is
// known (an affine op is fitted exactly and wins cross-validation; a power law is recovered).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "autotune/op_model.hpp"
#include "kernels/describe/op_costs.hpp"

namespace scaletune::autotune {
namespace {

/// The GEMMs of one op ("linear" or "bmm") on one device of the NeuSight table, as the
/// describing backend records them (kernels::describe::gemm_op), with their times.
std::vector<OpPoint> neusight(const std::string& op, const std::string& device) {
  std::ifstream in(std::string(SCALETUNE_SHARED_DIR) + "/data/kernels/neusight_gemm_a100_h100.csv");
  EXPECT_TRUE(in.good());
  std::vector<OpPoint> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("#") || line.starts_with("op,")) continue;
    std::stringstream row(line);
    std::vector<std::string> f;
    for (std::string cell; std::getline(row, cell, ',');) f.push_back(cell);
    if (f.size() < 7 || f[0] != op || f[1] != device) continue;
    const std::int64_t b = std::stoll(f[2]), m = std::stoll(f[3]), n = std::stoll(f[4]),
                       k = std::stoll(f[5]);
    const trace::ComputeOp gemm =
        op == "linear" ? kernels::describe::gemm_op(b * m, n, k, 1, false, true, core::DType::fp32,
                                                    core::DType::fp32, false)
                       : kernels::describe::gemm_op(m, n, k, b, false, false, core::DType::fp32,
                                                    core::DType::fp32, false);
    out.push_back({gemm, std::stod(f[6]) * 1e-3});
  }
  return out;
}

/// Every other distinct shape (in file order) to fit, the rest held out.
void split(const std::vector<OpPoint>& all, std::vector<OpPoint>& fit, std::vector<OpPoint>& held) {
  std::map<std::string, int> seen;
  for (const OpPoint& p : all) {
    const std::string key = trace::shape_text(p.op.shape);
    const auto [it, fresh] = seen.emplace(key, static_cast<int>(seen.size()));
    (it->second % 2 == 0 ? fit : held).push_back(p);
  }
}

TEST(OpModel, NeuSightGemmsOnHeldOutShapes) {
  for (const std::string device : {"NVIDIA A100-PCIE-40GB", "NVIDIA H100 80GB HBM3"})
    for (const std::string op : {"linear", "bmm"}) {
      std::vector<OpPoint> fit, held;
      split(neusight(op, device), fit, held);
      ASSERT_GT(held.size(), 400u) << op << " " << device;
      const OpModel model = fit_op_model(fit, "cuda");
      const double mape = op_model_mape(model, held);
      std::printf(
          "%-6s %-24s %4zu fitted %4zu held out: %-9s held-out MAPE %.1f%% (cv %.1f%%, "
          "other form %.1f%%)\n",
          op.c_str(), device.c_str(), fit.size(), held.size(), op_model_form_name(model.form),
          100 * mape, 100 * model.cv_mape, 100 * model.other_cv_mape);
      // the issue's goal per op kind (the power law alone missed the bmms by 11.5-16.3%)
      EXPECT_LT(mape, 0.10) << op << " " << device;
    }
}

trace::ComputeOp synthetic(std::int64_t n, double flops, double bytes) {
  trace::ComputeOp op;
  op.op = "axpy";
  op.dtype = "fp32";
  op.shape = {{"numel", n}};
  op.flops = flops;
  op.bytes = bytes;
  return op;
}

TEST(OpModel, AffineTimesAreFittedExactly) {
  std::vector<OpPoint> points;
  for (std::int64_t n = 1024; n <= (1 << 24); n *= 2) {
    const double flops = 2.0 * n, bytes = 12.0 * n;
    points.push_back({synthetic(n, flops, bytes), 5e-6 + flops / 1e10 + bytes / 2e10});
  }
  const OpModel model = fit_op_model(points, "host");
  EXPECT_EQ(model.form, OpModelForm::affine);
  EXPECT_LT(model.cv_mape, 1e-3);
  const trace::ComputeOp unseen = synthetic(3 << 24, 6.0 * (1 << 24), 36.0 * (1 << 24));
  EXPECT_NEAR(model.time_s(unseen), 5e-6 + unseen.flops / 1e10 + unseen.bytes / 2e10,
              1e-3 * model.time_s(unseen));
  ASSERT_EQ(model.extrapolation(unseen).size(), 3u);  // numel, flops and bytes past the profile
  EXPECT_TRUE(model.extrapolation(points[3].op).empty());
}

TEST(OpModel, PowerLawTimesAreRecovered) {
  std::vector<OpPoint> points;
  for (std::int64_t n = 64; n <= 16384; n *= 2)
    for (std::int64_t k = 64; k <= 16384; k *= 4) {
      trace::ComputeOp op = synthetic(n, 2.0 * n * k, 4.0 * (n + k));
      op.shape.push_back({"k", k});
      points.push_back({op, 1e-9 * std::pow(double(n), 1.3) * std::pow(double(k), 0.7)});
    }
  const OpModel model = fit_op_model(points, "host");
  EXPECT_NE(model.form, OpModelForm::affine);  // power_law, or with a residual for log1p's bend
  EXPECT_LT(model.cv_mape, 0.02);
}

TEST(OpModel, PredictionsAreMeanUnbiasedOnTheFittedPoints) {
  // Times scattered +-40% around 1 ns per element: whichever form wins, the mean of measured
  // over predicted time on the fitted points is 1 (Duan's smearing), so a sum of ops, a step,
  // is not predicted low.
  std::vector<OpPoint> points;
  for (int i = 0; i < 12; ++i) {
    const std::int64_t n = std::int64_t{1024} << i;
    points.push_back({synthetic(n, double(n), 12.0 * n), 1e-9 * double(n) * (i % 2 ? 1.4 : 0.6)});
  }
  const OpModel model = fit_op_model(points, "host");
  double ratio = 0.0;
  for (const OpPoint& p : points) ratio += p.time_s / model.time_s(p.op);
  EXPECT_NEAR(ratio / double(points.size()), 1.0, 1e-9);
}

/// 1 ns per element, four times slower around 64 Ki elements (a kernel's bad tile size): a
/// bump no power law follows.
double bumped_time(double n) {
  const double z = (std::log2(n) - 16.0) / 3.0;
  return 1e-9 * n * (1.0 + 3.0 * std::exp(-z * z));
}

TEST(OpModel, ABumpThePowerLawMissesIsTakenByTheResidual) {
  std::vector<OpPoint> points;
  for (int i = 0; i <= 28; ++i) {
    const auto n = static_cast<std::int64_t>(std::llround(std::exp2(10.0 + 0.5 * i)));
    points.push_back({synthetic(n, double(n), 12.0 * n), bumped_time(double(n))});
  }
  const OpModel model = fit_op_model(points, "host");
  EXPECT_EQ(model.form, OpModelForm::power_law_rbf);
  EXPECT_LT(model.cv_mape, 0.5 * model.other_cv_mape);
  // Shapes between the profiled ones, on the bump and off it, within 10%.
  for (double log2n : {13.25, 16.25, 17.75, 21.25}) {
    const auto n = static_cast<std::int64_t>(std::llround(std::exp2(log2n)));
    const double t = bumped_time(double(n));
    EXPECT_NEAR(model.time_s(synthetic(n, double(n), 12.0 * n)), t, 0.10 * t) << "n = " << n;
  }
}

TEST(OpModel, AnEmptyShardTakesNoTime) {
  // An elementwise op of numel 1024..4M at 1 ns per element plus 2 us: the power law's
  // intercept is not a time to charge an op of no elements (ZeRO's empty shards).
  std::vector<OpPoint> points;
  for (std::int64_t n = 1024; n <= (std::int64_t{1} << 22); n *= 2)
    points.push_back({synthetic(n, double(n), 12.0 * n), 2e-6 + 1e-9 * double(n)});
  const OpModel model = fit_op_model(points, "host");
  EXPECT_EQ(model.time_s(synthetic(0, 0.0, 0.0)), 0.0);
  EXPECT_GT(model.time_s(synthetic(1, 1.0, 12.0)), 0.0);
  EXPECT_LT(model.time_s(synthetic(1, 1.0, 12.0)), model.time_s(synthetic(1024, 1024.0, 12288.0)));
}

/// `n` points of distinct shapes (numel 8, 16, ...) taking `time_s` each.
std::vector<OpPoint> distinct_points(int n, double time_s) {
  std::vector<OpPoint> out;
  for (int i = 0; i < n; ++i) out.push_back({synthetic(std::int64_t{8} << i, 1, 1), time_s});
  return out;
}

/// The message fit_op_model throws for `points`; "" when it fits them.
std::string fit_error(const std::vector<OpPoint>& points) {
  try {
    fit_op_model(points, "host");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(OpModel, RefusesTooFewShapesOrMixedPoints) {
  EXPECT_NE(fit_error(distinct_points(3, 1e-6)).find("3 points of 3 shapes"), std::string::npos);
  // Four points, but two shapes each timed on two ranks: too few shapes.
  const std::vector<OpPoint> shapes = distinct_points(2, 1e-6);
  std::vector<OpPoint> two_shapes = shapes;
  two_shapes.insert(two_shapes.end(), shapes.begin(), shapes.end());
  EXPECT_NE(fit_error(two_shapes).find("4 points of 2 shapes; a model needs at least 4"),
            std::string::npos)
      << fit_error(two_shapes);
  std::vector<OpPoint> mixed = distinct_points(4, 1e-6);
  mixed[2].op.op = "other";
  EXPECT_NE(fit_error(mixed).find("a point of other fp32"), std::string::npos) << fit_error(mixed);
  EXPECT_NE(fit_error(distinct_points(4, 0.0)).find("expected > 0"), std::string::npos);
}

TEST(OpModel, CrossValidationHoldsOutWholeShapes) {
  // Each shape timed once, or on two ranks with the same times: when a fold holds out every
  // copy of a shape, the copies change nothing (the fits weigh every training shape twice and
  // every held-out shape counts twice), so the errors are equal. Folds of single points would
  // keep one copy in the fit and test on the other.
  std::vector<OpPoint> once;
  for (std::int64_t n = 1024; n <= (1 << 20); n *= 2)
    once.push_back({synthetic(n, 2.0 * n, 12.0 * n),
                    (5e-6 + 1e-9 * static_cast<double>(n)) * (1.0 + 0.3 * std::sin(double(n)))});
  std::vector<OpPoint> twice;
  for (const OpPoint& p : once) {
    twice.push_back(p);
    twice.push_back(p);
  }
  const OpModel a = fit_op_model(once, "host");
  const OpModel b = fit_op_model(twice, "host");
  EXPECT_GT(a.cv_mape, 0.01);  // the noise makes held-out shapes miss
  EXPECT_NEAR(b.cv_mape, a.cv_mape, 1e-9 * a.cv_mape);
  EXPECT_NEAR(b.other_cv_mape, a.other_cv_mape, 1e-9 * a.other_cv_mape);
}

TEST(OpModel, CopySpreadIsTheMeanDistanceOfCopiesFromTheirShapesMean) {
  // Shape 1024 timed 1 and 3 s (mean 2: 1/1 and 1/3 off), shape 2048 once (not a copy), shape
  // 4096 twice at 2 s (0 and 0): (1 + 1/3 + 0 + 0) / 4 by hand.
  const std::vector<OpPoint> points = {{synthetic(1024, 1.0, 1.0), 1.0},
                                       {synthetic(2048, 1.0, 1.0), 5.0},
                                       {synthetic(4096, 1.0, 1.0), 2.0},
                                       {synthetic(1024, 1.0, 1.0), 3.0},
                                       {synthetic(4096, 1.0, 1.0), 2.0}};
  const std::optional<double> spread = copy_spread(points);
  ASSERT_TRUE(spread.has_value());
  EXPECT_NEAR(*spread, (1.0 + 1.0 / 3.0) / 4.0, 1e-12);
  const std::vector<OpPoint> once(points.begin(), points.begin() + 3);
  EXPECT_FALSE(copy_spread(once).has_value());
}

}  // namespace
}  // namespace scaletune::autotune
