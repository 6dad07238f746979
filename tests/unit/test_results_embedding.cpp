// The /configs/<id>/embedding group (EmbeddingStats of a DLRM configuration): written and
// read back equal, absent reads as std::nullopt, wrong shapes rejected by the writer before
// anything is written and by the reader naming the file, the configuration and the dataset.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "harness/results/result_file.hpp"
#include "tests/unit/test_results_data.hpp"
#include "tests/unit/test_results_h5.hpp"

namespace scaletune::results {
namespace {

constexpr std::size_t kBins = EmbeddingStats::reuse_bins;

/// Upper edges of the reuse bins as EmbeddingStats defines them: 2^0 .. 2^15, then inf.
std::vector<double> bin_upper_edges() {
  std::vector<double> upper;
  double edge = 1;
  for (std::size_t b = 0; b + 1 < kBins; ++b, edge *= 2) upper.push_back(edge);
  upper.push_back(std::numeric_limits<double>::infinity());
  return upper;
}

/// Reference reuse histogram: the share of unique rows whose access count (`counts`, one per
/// unique row) falls in bin b = the first bin whose upper edge is >= the count; all 0 for none.
std::vector<double> naive_reuse_shares(const std::vector<std::int64_t>& counts) {
  const std::vector<double> upper = bin_upper_edges();
  std::vector<double> shares(kBins, 0.0);
  for (std::int64_t count : counts) {
    std::size_t b = 0;
    while (static_cast<double>(count) > upper[b]) ++b;
    shares[b] += 1.0 / static_cast<double>(counts.size());
  }
  return shares;
}

/// The unique rows one rank read of one table (access count of each) and the shard's columns.
struct Served {
  std::vector<std::int64_t> row_counts;
  std::int64_t cols = 0;
};

/// Two fp32 tables on 3 ranks: t0 (16 columns) table-wise on rank 1; t1 (8 columns) row-wise
/// over ranks 0-2. Lookups are the summed access counts, bytes_touched lookups x columns x 4;
/// counts 32768 and 40000 land in the last two bins, (2^14, 2^15] and (2^15, inf).
EmbeddingStats sample_embedding() {
  const std::vector<std::vector<Served>> served = {
      {{{}, 16}, {{1, 1, 2, 3, 5, 8, 32768, 40000}, 16}, {{}, 16}},
      {{{1, 1, 1, 4}, 8}, {{2, 2, 9}, 8}, {{17, 100, 1000}, 8}}};
  EmbeddingStats stats;
  stats.table_names = {"t0", "t1"};
  stats.ranks = 3;
  for (const std::vector<Served>& table : served) {
    for (const Served& rank : table) {
      const std::int64_t lookups =
          std::accumulate(rank.row_counts.begin(), rank.row_counts.end(), std::int64_t{0});
      stats.lookups.push_back(lookups);
      stats.bytes_touched.push_back(lookups * rank.cols * 4);
      for (double share : naive_reuse_shares(rank.row_counts))
        stats.reuse_histogram.push_back(share);
    }
  }
  return stats;
}

/// The sample ok configuration (3 ranks, 6 iterations) as a DLRM run with embedding stats.
ConfigResult dlrm_config() {
  ConfigResult c = test::ok_config();
  c.id = "dlrm-r3-b96-proportional-mixed";
  c.workload = "dlrm";
  c.phase_names = {"emb_fwd", "alltoall_fwd", "fwd_bwd", "optimizer"};
  c.number_attrs.clear();
  c.text_attrs = {{"sharding", "mixed"},
                  {"plan",
                   "t0:table_wise[r1]; t1:row_wise[r0:rows=0-50,r1:rows=50-100,"
                   "r2:rows=100-150]"}};
  c.embedding = sample_embedding();
  return c;
}

void expect_same(const EmbeddingStats& got, const EmbeddingStats& want) {
  EXPECT_EQ(got.table_names, want.table_names);
  EXPECT_EQ(got.ranks, want.ranks);
  EXPECT_EQ(got.lookups, want.lookups);
  EXPECT_EQ(got.bytes_touched, want.bytes_touched);
  EXPECT_EQ(got.reuse_histogram, want.reuse_histogram);  // float64 stored unchanged
}

using test::contains;
using test::error_of;

/// A result file holding dlrm_config(); returns its path.
std::string write_dlrm_file(const test::TempDir& dir) {
  const std::string path = dir.file("dlrm.h5");
  ResultWriter::create(path, test::sample_provenance(), test::sample_system())
      .write_config(dlrm_config());
  return path;
}

/// Replaces dataset `name` of `group` by a float64 dataset of shape `dims` holding `values`.
void replace_double_dataset(hid_t group, const std::string& name, const std::vector<hsize_t>& dims,
                            const std::vector<double>& values) {
  ASSERT_GE(H5Ldelete(group, name.c_str(), H5P_DEFAULT), 0);
  const test::Id space{H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                       H5Sclose};
  const test::Id dataset{
      H5Dcreate2(group, name.c_str(), H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose};
  ASSERT_GE(H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
}

/// Object path of the embedding group of dlrm_config().
std::string embedding_path() {
  return "/configs/" + dlrm_config().id + "/embedding";
}

TEST(ResultEmbedding, SampleHistogramsFollowTheBinDefinition) {
  const EmbeddingStats stats = sample_embedding();
  ASSERT_EQ(stats.reuse_histogram.size(), 2 * 3 * kBins);
  // t0 on rank 1: counts 1,1,2,3,5,8,32768,40000 over 8 unique rows.
  const std::vector<double> t0_r1(stats.reuse_histogram.begin() + kBins,
                                  stats.reuse_histogram.begin() + 2 * kBins);
  EXPECT_EQ(t0_r1[0], 2.0 / 8);   // (0,1]
  EXPECT_EQ(t0_r1[1], 1.0 / 8);   // (1,2]
  EXPECT_EQ(t0_r1[2], 1.0 / 8);   // (2,4]: 3
  EXPECT_EQ(t0_r1[3], 2.0 / 8);   // (4,8]: 5, 8
  EXPECT_EQ(t0_r1[15], 1.0 / 8);  // (2^14,2^15]: 32768
  EXPECT_EQ(t0_r1[16], 1.0 / 8);  // (2^15,inf): 40000
  EXPECT_EQ(stats.lookups, (std::vector<std::int64_t>{0, 72788, 0, 7, 13, 1117}));
}

TEST(ResultEmbedding, RoundTripReadsBackEqual) {
  const test::TempDir dir;
  const std::string path = dir.file("roundtrip.h5");
  {
    ResultWriter writer =
        ResultWriter::create(path, test::sample_provenance(), test::sample_system());
    writer.write_config(dlrm_config());
    writer.write_config(test::oom_config());
  }
  const ResultSet set = read_results(path);  // in id order: the oom one (r2) first
  ASSERT_EQ(set.configs.size(), 2u);
  test::expect_same(set.configs[0], test::oom_config());
  EXPECT_FALSE(set.configs[0].embedding.has_value());
  const ConfigResult& dlrm = set.configs[1];
  test::expect_same(dlrm, dlrm_config());
  ASSERT_TRUE(dlrm.embedding.has_value());
  expect_same(*dlrm.embedding, sample_embedding());
  EXPECT_EQ(dlrm.text_attrs.at("plan"), dlrm_config().text_attrs.at("plan"));
}

TEST(ResultEmbedding, GroupHasTheDocumentedLayout) {
  const test::TempDir dir;
  const test::Id file = test::open_file(write_dlrm_file(dir));
  const test::Id group = test::open_object(file, embedding_path());
  ASSERT_GE(group, 0);
  struct Expected {
    const char* name;
    H5T_class_t type_class;
    std::size_t size_bytes;  // 0: a variable-length string
    std::vector<hsize_t> shape;
    const char* units;
    const char* dims;
  };
  for (const Expected& want :
       {Expected{"table_names", H5T_STRING, 0, {2}, "", "tables"},
        Expected{"lookups", H5T_INTEGER, 8, {2, 3}, "", "tables,ranks"},
        Expected{"bytes_touched", H5T_INTEGER, 8, {2, 3}, "bytes", "tables,ranks"},
        Expected{"reuse_histogram", H5T_FLOAT, 8, {2, 3, kBins}, "", "tables,ranks,bins"},
        Expected{"reuse_bin_upper", H5T_FLOAT, 8, {kBins}, "", "bins"}}) {
    SCOPED_TRACE(want.name);
    const test::Id dataset = test::open_object(group, want.name);
    ASSERT_GE(dataset, 0);
    const test::Id type{H5Dget_type(dataset), H5Tclose};
    const test::TypeInfo info = test::type_info(type);
    EXPECT_EQ(info.type_class, want.type_class);
    EXPECT_EQ(info.variable_string, want.type_class == H5T_STRING);
    if (want.size_bytes > 0) {
      EXPECT_EQ(info.size_bytes, want.size_bytes);
    }
    EXPECT_EQ(test::dataset_shape(dataset), want.shape);
    EXPECT_EQ(test::string_attribute(dataset, "units"), want.units);
    EXPECT_EQ(test::string_attribute(dataset, "dims"), want.dims);
  }
  const test::Id upper = test::open_object(group, "reuse_bin_upper");
  std::vector<double> edges(kBins);
  ASSERT_GE(H5Dread(upper, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, edges.data()), 0);
  EXPECT_EQ(edges, bin_upper_edges());
}

TEST(ResultEmbedding, ConfigurationWithoutTheGroupReadsAsNullopt) {
  const test::TempDir dir;
  const std::string path = write_dlrm_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    ASSERT_GE(H5Ldelete(file, embedding_path().c_str(), H5P_DEFAULT), 0);
  }
  const ResultSet set = read_results(path);
  ASSERT_EQ(set.configs.size(), 1u);
  EXPECT_FALSE(set.configs[0].embedding.has_value());
  ConfigResult without = dlrm_config();
  without.embedding.reset();
  test::expect_same(set.configs[0], without);
}

/// A change that makes the embedding stats of dlrm_config() unstorable, and the message part.
struct BadShape {
  std::string name;
  std::function<void(EmbeddingStats&)> spoil;
  std::string message;
};

class WriterRejectsEmbedding : public ::testing::TestWithParam<BadShape> {};

TEST_P(WriterRejectsEmbedding, WithoutCreatingTheConfigGroup) {
  const test::TempDir dir;
  const std::string path = dir.file("reject.h5");
  ResultWriter writer =
      ResultWriter::create(path, test::sample_provenance(), test::sample_system());
  ConfigResult config = dlrm_config();
  GetParam().spoil(*config.embedding);
  const std::string message = error_of([&] { writer.write_config(config); });
  EXPECT_TRUE(contains(message, path + ": /configs/" + config.id + ": "));
  EXPECT_TRUE(contains(message, GetParam().message));
  EXPECT_TRUE(read_results(path).configs.empty());
}

INSTANTIATE_TEST_SUITE_P(
    ResultEmbedding, WriterRejectsEmbedding,
    ::testing::Values(
        BadShape{"LookupsShort", [](EmbeddingStats& e) { e.lookups.pop_back(); },
                 "embedding.lookups holds 5 values; expected tables * ranks = 6"},
        BadShape{"BytesTouchedLong", [](EmbeddingStats& e) { e.bytes_touched.push_back(0); },
                 "embedding.bytes_touched holds 7 values; expected tables * ranks = 6"},
        BadShape{"HistogramOneBinShort", [](EmbeddingStats& e) { e.reuse_histogram.pop_back(); },
                 "embedding.reuse_histogram holds 101 values; expected tables * ranks * "
                 "reuse_bins = 102"},
        BadShape{"ThirdTableName", [](EmbeddingStats& e) { e.table_names.push_back("t2"); },
                 "embedding.lookups holds 6 values; expected tables * ranks = 9"},
        BadShape{"OtherRankCount", [](EmbeddingStats& e) { e.ranks = 2; },
                 "embedding.ranks is 2; expected the configuration's ranks (3)"}),
    [](const ::testing::TestParamInfo<BadShape>& param) { return param.param.name; });

TEST(ResultEmbedding, ReaderRejectsLookupsOfTheWrongShape) {
  const test::TempDir dir;
  const std::string path = write_dlrm_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    test::replace_int64_dataset(test::open_object(file, embedding_path()), "lookups",
                                sample_embedding().lookups);  // flat [6], not [2, 3]
  }
  const std::string message = error_of([&] { read_results(path); });
  EXPECT_TRUE(contains(message, path + ": " + embedding_path() + "/lookups: "));
  EXPECT_TRUE(contains(message, "shape [6]; expected [tables,ranks] = [2,3]"));
}

TEST(ResultEmbedding, ReaderRejectsLookupsStoredAsFloat) {
  const test::TempDir dir;
  const std::string path = write_dlrm_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    replace_double_dataset(test::open_object(file, embedding_path()), "lookups", {2, 3},
                           {0, 72788.5, 0, 7, 13, 1117});
  }
  const std::string message = error_of([&] { read_results(path); });
  EXPECT_TRUE(contains(message, path + ": " + embedding_path() + "/lookups: "));
  EXPECT_TRUE(contains(message, "stored type is float; expected integer"));
}

TEST(ResultEmbedding, ReaderRejectsOtherBinEdges) {
  const test::TempDir dir;
  const std::string path = write_dlrm_file(dir);
  std::vector<double> decades;  // 1, 10, 100, ...: the right shape, other bins
  for (std::size_t b = 0; b < kBins; ++b) decades.push_back(b == 0 ? 1 : decades.back() * 10);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    replace_double_dataset(test::open_object(file, embedding_path()), "reuse_bin_upper", {kBins},
                           decades);
  }
  const std::string message = error_of([&] { read_results(path); });
  EXPECT_TRUE(contains(message, embedding_path() + "/reuse_bin_upper: "));
  EXPECT_TRUE(contains(message,
                       "expected 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, "
                       "4096, 8192, 16384, 32768, inf"));
}

// A missing part makes the configuration incomplete (an interrupted write): skipped and named.
TEST(ResultEmbedding, ReaderSkipsAndNamesAConfigurationMissingADataset) {
  const test::TempDir dir;
  const std::string path = write_dlrm_file(dir);
  {
    const test::Id file = test::open_file(path, H5F_ACC_RDWR);
    ASSERT_GE(H5Ldelete(test::open_object(file, embedding_path()), "bytes_touched", H5P_DEFAULT),
              0);
  }
  const ResultSet set = read_results(path);
  EXPECT_TRUE(set.configs.empty());
  ASSERT_EQ(set.incomplete.size(), 1U);
  EXPECT_TRUE(contains(set.incomplete.front().reason,
                       path + ": " + embedding_path() + ": missing dataset bytes_touched"));
}

TEST(ResultEmbedding, PassesTheSharedLayoutCheckerAndReadsInH5py) {
  if (std::system("/usr/bin/python3 -c 'import h5py' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 cannot import h5py";
  const test::TempDir dir;
  const std::string path = write_dlrm_file(dir);
  const std::string check =
      "/usr/bin/python3 " SCALETUNE_SHARED_DIR "/checks/check_results.py " + path;
  EXPECT_EQ(std::system(check.c_str()), 0) << check;
  const std::string h5py_view =  // what the README's snippet relies on
      "/usr/bin/python3 -c \"import sys, h5py, numpy as np; "
      "e = h5py.File(sys.argv[1], 'r')['configs/" +
      dlrm_config().id +
      "/embedding']; "
      "ok = (e['reuse_histogram'].shape == (2, 3, 17) and np.isinf(e['reuse_bin_upper'][-1]) "
      "and list(e['table_names'].asstr()[()]) == ['t0', 't1'] "
      "and int(e['lookups'][1, 2]) == 1117); sys.exit(0 if ok else 1)\" " +
      path;
  EXPECT_EQ(std::system(h5py_view.c_str()), 0) << h5py_view;
}

}  // namespace
}  // namespace scaletune::results
