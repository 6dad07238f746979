// Time to train, device-minutes, cost and the accelerator of each configuration, and the series
// of MLPerf submissions (accelerator model and software stack), on a small fixed table whose
// expected values are worked out by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "autotune/accelerators.hpp"
#include "autotune/metrics.hpp"

namespace at = scaletune::autotune;
namespace rs = scaletune::results;

namespace {

rs::ConfigResult submission(const std::string& id, const std::string& accelerator,
                            const std::string& model, int ranks, double throughput,
                            double minutes) {
  rs::ConfigResult c;
  c.id = id;
  c.workload = "mlperf:resnet50";
  c.ranks = ranks;
  c.global_batch = 256 * ranks;
  c.batch_split = "even";
  c.precision = "unknown";
  c.throughput = throughput;
  c.number_attrs["time_to_train_minutes"] = minutes;
  c.text_attrs["accelerator"] = accelerator;
  c.text_attrs["accelerator_model"] = model;
  c.text_attrs["software_stack"] = "mxnet";
  return c;
}

rs::ConfigResult sweep_config(const std::string& id, int ranks, double throughput) {
  rs::ConfigResult c;
  c.id = id;
  c.workload = "resnet50";
  c.ranks = ranks;
  c.global_batch = 64;
  c.batch_split = "even";
  c.precision = "fp32";
  c.throughput = throughput;
  return c;
}

rs::SystemInfo system_of(const std::vector<std::string>& devices) {
  rs::SystemInfo s;
  s.world_size = static_cast<int>(devices.size());
  for (std::size_t r = 0; r < devices.size(); ++r)
    s.ranks.push_back({static_cast<int>(r), "node0", static_cast<int>(r), devices[r], 0});
  return s;
}

at::PriceTable prices() {
  at::PriceTable p;
  p.path = "prices.toml";
  p.currency = "USD";
  p.per_device_hour = {{"A100-SXM-80GB", 2.0},
                       {"NVIDIA H100-SXM5-80GB", 3.0},
                       {"host-core", 0.6},
                       {"NVIDIA H200", 4.0},
                       {"NVIDIA H100", 3.0}};
  return p;
}

const at::ConfigMetrics& by_id(const std::vector<at::ConfigMetrics>& all, const std::string& id) {
  for (const auto& m : all)
    if (m.id == id) return m;
  throw std::out_of_range(id);
}

}  // namespace

TEST(CostMetrics, MlperfSubmissions) {
  rs::ResultSet set;
  set.path = "mlperf.h5";
  set.configs = {
      submission("a8", "NVIDIA A100-SXM4-80GB (400W)", "A100-SXM-80GB", 8, 20000, 30),
      submission("a64", "NVIDIA A100-SXM-80GB", "A100-SXM-80GB", 64, 128000, 5),
      submission("h8", "NVIDIA H100-SXM5-80GB", "H100-SXM-80GB", 8, 40000, 15),
      submission("l4", "NVIDIA L40", "L40", 4, 3000, 200),
  };
  const auto all = at::compute_metrics(set, {.train_samples = 1e6, .prices = prices()});
  // a8: 8 x 30 = 240 device-minutes, 240 / 60 h x 2.0 = 8.0; its own baseline.
  const auto& a8 = by_id(all, "a8");
  EXPECT_TRUE(a8.time_to_train_measured);
  EXPECT_DOUBLE_EQ(a8.time_to_train_min, 30);
  EXPECT_DOUBLE_EQ(a8.device_minutes, 240);
  EXPECT_DOUBLE_EQ(a8.cost, 8.0);
  EXPECT_EQ(a8.accelerator, "A100-SXM-80GB");
  EXPECT_EQ(a8.series, "mlperf:resnet50, A100-SXM-80GB, mxnet");
  // a64: same model spelled otherwise, so the same series; 64 x 5 = 320 device-minutes,
  // 320 / 60 x 2.0 = 10.667; efficiency (128000 / 64) / (20000 / 8) = 2000 / 2500 = 0.8.
  const auto& a64 = by_id(all, "a64");
  EXPECT_EQ(a64.series, a8.series);
  EXPECT_EQ(a64.baseline_id, "a8");
  EXPECT_DOUBLE_EQ(a64.device_minutes, 320);
  EXPECT_NEAR(a64.cost, 320.0 / 60.0 * 2.0, 1e-12);
  EXPECT_NEAR(a64.scaling_efficiency, 0.8, 1e-12);
  // h8: priced under its CSV spelling only: 8 x 15 = 120, 120 / 60 x 3.0 = 6.0.
  EXPECT_DOUBLE_EQ(by_id(all, "h8").cost, 6.0);
  EXPECT_DOUBLE_EQ(by_id(all, "h8").scaling_efficiency, 1.0);
  // l4: no price.
  EXPECT_TRUE(std::isnan(by_id(all, "l4").cost));
  EXPECT_DOUBLE_EQ(by_id(all, "l4").device_minutes, 800);
}

TEST(CostMetrics, SweepsEstimateTimeToTrainFromThroughput) {
  rs::ResultSet set;
  set.path = "sweep.h5";
  set.system = system_of({"cuda:0 NVIDIA H200", "cuda:1 NVIDIA H100", "cuda:2 NVIDIA H100"});
  set.configs = {sweep_config("r1", 1, 60), sweep_config("r2", 2, 50)};
  const auto all = at::compute_metrics(set, {.train_samples = 6000, .prices = prices()});
  // r1: 6000 samples / 60 samples/s = 100 s = 5/3 min on one H200: 5/3 / 60 h x 4.0.
  const auto& r1 = by_id(all, "r1");
  EXPECT_FALSE(r1.time_to_train_measured);
  EXPECT_NEAR(r1.time_to_train_min, 100.0 / 60.0, 1e-12);
  EXPECT_NEAR(r1.cost, 100.0 / 3600.0 * 4.0, 1e-12);
  EXPECT_EQ(r1.accelerator, "NVIDIA H200");
  // r2: 6000 / 50 = 120 s = 2 min on ranks 0 and 1; 4 device-minutes; 2 / 60 h x (4 + 3).
  const auto& r2 = by_id(all, "r2");
  EXPECT_NEAR(r2.time_to_train_min, 2.0, 1e-12);
  EXPECT_NEAR(r2.device_minutes, 4.0, 1e-12);
  EXPECT_NEAR(r2.cost, 2.0 / 60.0 * 7.0, 1e-12);
  EXPECT_EQ(r2.accelerator, "NVIDIA H200 + NVIDIA H100");
}

TEST(CostMetrics, NoPricesNoCostAndBadSamples) {
  rs::ResultSet set;
  set.path = "sweep.h5";
  set.configs = {sweep_config("r1", 1, 60)};
  const auto all = at::compute_metrics(set);
  EXPECT_TRUE(std::isnan(all[0].cost));
  EXPECT_EQ(all[0].accelerator, "unknown");  // no /system
  EXPECT_NEAR(all[0].time_to_train_min, at::kDefaultTrainSamples / 60.0 / 60.0, 1e-9);
  EXPECT_THROW(at::compute_metrics(set, {.train_samples = 0, .prices = {}}), std::invalid_argument);
}

TEST(CostMetrics, MlperfWithoutScoreIsBadInput) {
  rs::ResultSet set;
  set.path = "m.h5";
  set.configs = {submission("a8", "NVIDIA A100", "A100", 8, 20000, 30)};
  set.configs[0].number_attrs.erase("time_to_train_minutes");
  try {
    at::compute_metrics(set);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("m.h5: /configs/a8"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("time_to_train_minutes"), std::string::npos);
  }
}

TEST(Accelerators, DeviceModel) {
  EXPECT_EQ(at::device_model("cuda:0 NVIDIA H200"), "NVIDIA H200");
  EXPECT_EQ(at::device_model("host-core:13"), "host-core");
  EXPECT_EQ(at::device_model("NVIDIA A100"), "NVIDIA A100");
  EXPECT_EQ(at::device_model("host-core:x"), "host-core:x");
}
