// scaletune import mlperf: the shared MLPerf Training ResNet-50 CSV read into configurations
// (row count after dropping rows repeating an earlier round, counted by a naive scan of the
// file; values copied by hand from the CSV text), the RFC 4180 line splitter, and bad files
// (missing column, non-numeric value, short row) with their line numbers.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "autotune/metrics.hpp"
#include "autotune/mlperf_csv_line.hpp"
#include "autotune/mlperf_import.hpp"

namespace at = scaletune::autotune;
namespace rs = scaletune::results;

namespace {

const std::string kCsv = std::string(SCALETUNE_SHARED_DIR) +
                         "/data/mlperf/mlperf_training_resnet50_closed_v1.0-v3.1.csv";

/// Data lines of `path` whose 27th field (logs_identical_to_round, counted by hand in the
/// header) is empty, found by walking the characters: quotes toggle, commas outside count.
std::size_t count_original_rows(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(at::split_csv_line(line).at(26), "logs_identical_to_round");
  std::size_t kept = 0;
  while (std::getline(in, line)) {
    int field = 0;
    bool quoted = false;
    bool empty = true;
    for (const char ch : line) {
      if (ch == '"')
        quoted = !quoted;
      else if (ch == ',' && !quoted)
        ++field;
      else if (field == 26)
        empty = false;
    }
    if (!line.empty() && empty) ++kept;
  }
  return kept;
}

const rs::ConfigResult& by_id(const at::MlperfImport& imported, const std::string& id) {
  for (const auto& c : imported.configs)
    if (c.id == id) return c;
  throw std::out_of_range("no configuration " + id);
}

/// The message parse_mlperf_csv throws for `text`, or "" when it does not throw.
std::string error_of(const std::string& text) {
  std::istringstream in(text);
  try {
    at::parse_mlperf_csv(in, "bad.csv");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

const std::string kHeader =
    "round,submitter,system,accelerator,total_accelerators,nodes,host_processor,framework,"
    "time_to_train_minutes,global_batch_size,epochs_median,approx_throughput_img_s,"
    "logs_identical_to_round\n";

}  // namespace

TEST(SplitCsvLine, QuotesCommasAndDoubledQuotes) {
  EXPECT_EQ(at::split_csv_line(""), std::vector<std::string>{""});
  EXPECT_EQ(at::split_csv_line("a,,b"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(at::split_csv_line("\"x, y\",\"say \"\"hi\"\"\",z\r"),
            (std::vector<std::string>{"x, y", "say \"hi\"", "z"}));
}

TEST(MlperfImport, SharedCsvKeepsRowsNotRepeatingAnEarlierRound) {
  const at::MlperfImport imported = at::read_mlperf_csv(kCsv);
  const std::size_t kept = count_original_rows(kCsv);
  EXPECT_EQ(imported.configs.size(), kept);
  EXPECT_EQ(imported.configs.size() + imported.duplicates_dropped, 266u);  // data/README.md
  std::set<std::string> ids;
  for (const auto& c : imported.configs) {
    EXPECT_TRUE(ids.insert(c.id).second) << c.id;
    EXPECT_EQ(c.id.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                     "0123456789._-"),
              std::string::npos)
        << c.id;
  }
}

TEST(MlperfImport, SpotValuesFromTheCsvText) {
  const at::MlperfImport imported = at::read_mlperf_csv(kCsv);
  // Line 2: v1.0,Dell,2xDSS8440x8A100-PCIE-40GB,...,8,2,16,...,20.9794,...,3264,35,1,,35609.5
  const rs::ConfigResult& dell = by_id(imported, "mlperf-v1.0-Dell-2xDSS8440x8A100-PCIE-40GB");
  EXPECT_EQ(dell.workload, "mlperf:resnet50");
  EXPECT_EQ(dell.ranks, 16);
  EXPECT_EQ(dell.global_batch, 3264);
  EXPECT_DOUBLE_EQ(dell.throughput, 35609.5);
  EXPECT_DOUBLE_EQ(dell.number_attrs.at("time_to_train_minutes"), 20.9794);
  EXPECT_DOUBLE_EQ(dell.number_attrs.at("epochs"), 35);
  EXPECT_DOUBLE_EQ(dell.number_attrs.at("nodes"), 2);
  EXPECT_DOUBLE_EQ(dell.number_attrs.at("accelerators_per_node"), 8);
  EXPECT_EQ(dell.text_attrs.at("accelerator"), "NVIDIA A100-PCIE-40GB (250W)");
  EXPECT_EQ(dell.text_attrs.at("host_processor"), "Intel(R) Xeon(R) Gold 6248R CPU @ 3.00GHz");
  EXPECT_EQ(dell.text_attrs.at("framework"),
            "NGC MXNet 21.05 , NGC PyTorch 21.05 , NGC TensorFlow 21.05-tf1");
  EXPECT_EQ(dell.text_attrs.at("source"), "mlperf_training_resnet50_closed_v1.0-v3.1.csv");
  EXPECT_EQ(dell.text_attrs.at("accelerator_model"), "A100-PCIE-40GB");
  EXPECT_EQ(dell.text_attrs.at("software_stack"), "mxnet");
  EXPECT_TRUE(dell.per_rank_batch.empty());
  EXPECT_TRUE(dell.step_time.empty());
  // Line 3: v1.0,Dell,2xXE8545x4A100-SXM-80GB,...,4,2,8,...,29.8343,...,3264,35,1,,25050.4
  const rs::ConfigResult& xe = by_id(imported, "mlperf-v1.0-Dell-2xXE8545x4A100-SXM-80GB");
  EXPECT_EQ(xe.ranks, 8);
  EXPECT_DOUBLE_EQ(xe.throughput, 25050.4);
  EXPECT_DOUBLE_EQ(xe.number_attrs.at("time_to_train_minutes"), 29.8343);
  // Line 88: v2.0,Dell,XE8545x4A100-SXM-40GB,...,4,1,4,...,62.2128,...,816|1024,35,1,,12013.5
  const rs::ConfigResult& mixed = by_id(imported, "mlperf-v2.0-Dell-XE8545x4A100-SXM-40GB");
  EXPECT_EQ(mixed.ranks, 4);
  EXPECT_EQ(mixed.global_batch, 816);
  EXPECT_EQ(mixed.text_attrs.at("global_batch_size_runs"), "816|1024");
  EXPECT_DOUBLE_EQ(mixed.throughput, 12013.5);
}

TEST(MlperfImport, CollidingIdsGetASuffixAndOddCharactersAreReplaced) {
  const std::string row = "v3.1,Big Co,sys/a b,X,2,1,cpu,fw,10,64,35,1000,\n";
  std::istringstream in(kHeader + row + row);
  const at::MlperfImport imported = at::parse_mlperf_csv(in, "dir/two.csv");
  ASSERT_EQ(imported.configs.size(), 2u);
  EXPECT_EQ(imported.configs[0].id, "mlperf-v3.1-Big_Co-sys_a_b");
  EXPECT_EQ(imported.configs[1].id, "mlperf-v3.1-Big_Co-sys_a_b-2");
  EXPECT_EQ(imported.configs[0].text_attrs.at("source"), "two.csv");
  EXPECT_FALSE(imported.configs[0].number_attrs.contains("accelerators_per_node"));
}

TEST(MlperfImport, RowsRepeatingAnEarlierRoundAreDroppedAndCounted) {
  std::istringstream in(kHeader + "v1.0,A,s,X,2,1,cpu,fw,10,64,35,1000,\n" +
                        "v1.1,A,s,X,2,1,cpu,fw,10,64,35,1000,v1.0\n");
  const at::MlperfImport imported = at::parse_mlperf_csv(in, "x.csv");
  EXPECT_EQ(imported.configs.size(), 1u);
  EXPECT_EQ(imported.duplicates_dropped, 1u);
}

TEST(MlperfImport, BadFilesNameTheLineAndColumn) {
  std::string header = kHeader;
  header.replace(header.find("epochs_median"), 13, "epochs");
  EXPECT_EQ(error_of(header).rfind("bad.csv:1: missing column 'epochs_median'", 0), 0u)
      << error_of(header);
  EXPECT_EQ(error_of(kHeader + "v1.0,A,s,X,2,1,cpu,fw,10,64,35,1000,\n" +
                     "v1.0,A,t,X,2,1,cpu,fw,abc,64,35,1000,\n"),
            "bad.csv:3: column 'time_to_train_minutes': expected a number, got 'abc'");
  EXPECT_EQ(error_of(kHeader + "v1.0,A,s,X,2,1,cpu,fw,10,64,35,,\n"),
            "bad.csv:2: column 'approx_throughput_img_s': expected a number, got ''");
  EXPECT_EQ(error_of(kHeader + "\nv1.0,A,s,X,2,1,cpu,fw,10,64\n"),
            "bad.csv:3: expected 13 fields as in the header, got 10");
  EXPECT_EQ(error_of(kHeader + "v1.0,A,s,X,2.5,1,cpu,fw,10,64,35,1000,\n"),
            "bad.csv:2: column 'total_accelerators': expected a whole number >= 1, got '2.5'");
  EXPECT_EQ(error_of(kHeader + "v1.0,A,s,X,2,1,cpu,fw,10,64,35,0,\n"),
            "bad.csv:2: column 'approx_throughput_img_s': expected a number > 0, got '0'");
  EXPECT_EQ(error_of(kHeader + "v1.0,A,s,X,2,1,cpu,fw,10,64,-35,1000,\n"),
            "bad.csv:2: column 'epochs_median': expected a number > 0, got '-35'");
  EXPECT_EQ(error_of(kHeader + "v1.0,A,s,X,2,1,cpu,fw,0,64,35,1000,\n"),
            "bad.csv:2: column 'time_to_train_minutes': expected a number > 0, got '0'");
  EXPECT_EQ(error_of(""), "bad.csv: no header line");
  EXPECT_EQ(error_of(kHeader), "bad.csv: no row to import (no data row after the header)");
  EXPECT_EQ(error_of(kHeader + "v1.1,A,s,X,2,1,cpu,fw,10,64,35,1000,v1.0\n"),
            "bad.csv: no row to import (every row repeats an earlier round: 1 row dropped)");
}

TEST(MlperfImport, MetricsAcceptConfigurationsWithoutPhases) {
  std::istringstream in(kHeader + "v1.0,A,s,X,8,1,cpu,fw,10,64,35,1000,\n");
  const at::MlperfImport imported = at::parse_mlperf_csv(in, "x.csv");
  rs::ResultSet file;
  file.path = "x.h5";
  file.configs = imported.configs;
  const std::vector<at::ConfigMetrics> metrics = at::compute_metrics(file);
  ASSERT_EQ(metrics.size(), 1u);
  EXPECT_DOUBLE_EQ(metrics[0].throughput, 1000.0);
  EXPECT_DOUBLE_EQ(metrics[0].throughput_per_rank, 1000.0 / 8);
  EXPECT_DOUBLE_EQ(metrics[0].scaling_efficiency, 1.0);  // its own baseline
}
