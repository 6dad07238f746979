// Kind "dlrm" job files: [workload] tables (inline and tables_from CSV), MLPs, plans; [sweep]
// sharding and its expansion; [devices]; the plan text. Every error is checked for its line
// and key.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <regex>
#include <string>
#include <system_error>
#include <vector>

#include "harness/job/job.hpp"
#include "harness/job/job_error.hpp"
#include "harness/job/job_format.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "tests/support/job_text.hpp"

namespace {

using scaletune::job::Config;
using scaletune::job::config_sharding_text;
using scaletune::job::data_type_text;
namespace sj = scaletune::job;
using scaletune::job::expand_sweep;
using scaletune::job::JobError;
using scaletune::job::JobSpec;
using scaletune::job::parse_job_file;
using scaletune::job::parse_job_text;
using scaletune::testing_support::contains;
using scaletune::testing_support::job_error_of;
using scaletune::testing_support::line_of;
using scaletune::testing_support::lines_of;
using scaletune::testing_support::replaced_line;

constexpr const char* kFile = "dlrm.toml";

/// A valid dlrm job setting every [workload] key, with two inline tables (the second unnamed)
/// and two explicit plans.
const std::string kJob = R"([job]
name = "d"
[workload]
kind = "dlrm"
dense_features = 4
bottom_mlp = [8, 4]
top_mlp = [8, 1]
index_distribution = "zipf:1.05"
bag_size = "fixed"
embedding_optimizer = "rowwise_adagrad"
learning_rate = 0.5
[[workload.tables]]
name = "users"
rows = 1000
dim = 4
pooling = 2
[[workload.tables]]
rows = 50
dim = 4
pooling = 1
[workload.plans.split2]
users = { split = "row_wise", ranks = [1, 0] }
t1 = { split = "table_wise", ranks = [1] }
[workload.plans.alldp]
users = { split = "data_parallel" }
t1 = { split = "column_wise", ranks = [0] }
[sweep]
ranks = [1, 2]
global_batch = [8]
sharding = ["table_wise", "split2", "table_wise:size_greedy", "alldp"]
)";

/// `text` (default kJob) with its line `old_line` replaced by `new_line` (removed when empty).
std::string replaced(const std::string& old_line, const std::string& new_line,
                     const std::string& text = kJob) {
  return replaced_line(text, old_line, new_line);
}

JobError error_of(const std::string& text, const std::string& path = kFile) {
  return job_error_of(text, path);
}

/// Checks that `text` fails at the line of `needle` (0 when needle is empty) with `key` and a
/// message containing `part`.
void expect_error(const std::string& text, const std::string& needle, const std::string& key,
                  const std::string& part) {
  SCOPED_TRACE(needle + " / " + part);
  const JobError e = error_of(text);
  EXPECT_EQ(e.line(), needle.empty() ? 0 : line_of(text, needle)) << e.what();
  EXPECT_EQ(e.key(), key) << e.what();
  EXPECT_TRUE(contains(e.message(), part)) << e.what();
  EXPECT_TRUE(contains(e.what(), "'" + key + "'")) << e.what();
}

/// A scratch folder of this test process, removed with its contents at destruction.
class ScratchDir {
 public:
  ScratchDir()
      : m_path(std::filesystem::temp_directory_path() /
               ("scaletune-test-dlrm-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(m_path / "sub");
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(m_path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  std::string file(const std::string& name) const { return (m_path / name).string(); }

 private:
  std::filesystem::path m_path;
};

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

/// A dlrm job whose tables come from `csv` (rows of dim 4).
std::string csv_job(const std::string& csv) {
  return "[job]\nname = \"c\"\n[workload]\nkind = \"dlrm\"\nbottom_mlp = [8, 4]\n"
         "tables_from = \"" +
         csv + "\"\n[sweep]\nranks = [1, 2]\nglobal_batch = [8]\nsharding = [\"row_wise\"]\n";
}

// ---- valid jobs ----------------------------------------------------------------------------

TEST(DlrmJob, ReadsEveryKey) {
  const JobSpec job = parse_job_text(kJob, kFile);
  const scaletune::job::DlrmOptions& dlrm = job.workload.dlrm;
  EXPECT_EQ(job.workload.kind, "dlrm");
  ASSERT_EQ(dlrm.tables.size(), 2u);
  EXPECT_EQ(dlrm.tables[0].name, "users");
  EXPECT_EQ(dlrm.tables[0].rows, 1000);
  EXPECT_EQ(dlrm.tables[0].dim, 4);
  EXPECT_DOUBLE_EQ(dlrm.tables[0].pooling, 2.0);
  EXPECT_EQ(dlrm.tables[1].name, "t1");  // default "t<index>"
  EXPECT_EQ(dlrm.tables[1].rows, 50);
  EXPECT_DOUBLE_EQ(dlrm.tables[1].pooling, 1.0);
  EXPECT_EQ(dlrm.tables_from, "");
  EXPECT_EQ(dlrm.dense_features, 4);
  EXPECT_EQ(dlrm.bottom_mlp, (std::vector<int>{8, 4}));
  EXPECT_EQ(dlrm.top_mlp, (std::vector<int>{8, 1}));
  EXPECT_EQ(dlrm.index_distribution, (sj::IndexDistribution{sj::IndexLaw::zipf, 1.05}));
  EXPECT_EQ(dlrm.bag_size, sj::BagSizeLaw::fixed);
  EXPECT_EQ(dlrm.embedding_optimizer, sj::EmbeddingOptimizer::rowwise_adagrad);
  EXPECT_DOUBLE_EQ(dlrm.learning_rate, 0.5);
  // Plans sorted by name; placements in table order; ranks in the order written.
  ASSERT_EQ(dlrm.plans.size(), 2u);
  EXPECT_EQ(dlrm.plans[0].name, "alldp");
  ASSERT_EQ(dlrm.plans[0].tables.size(), 2u);
  EXPECT_EQ(dlrm.plans[0].tables[0].table, "users");
  EXPECT_EQ(dlrm.plans[0].tables[0].split, sj::ShardSplit::data_parallel);
  EXPECT_TRUE(dlrm.plans[0].tables[0].ranks.empty());
  EXPECT_EQ(dlrm.plans[0].tables[1].table, "t1");
  EXPECT_EQ(dlrm.plans[0].tables[1].split, sj::ShardSplit::column_wise);
  EXPECT_EQ(dlrm.plans[0].tables[1].ranks, std::vector<int>{0});
  EXPECT_EQ(dlrm.plans[1].name, "split2");
  EXPECT_EQ(dlrm.plans[1].tables[0].split, sj::ShardSplit::row_wise);
  EXPECT_EQ(dlrm.plans[1].tables[0].ranks, (std::vector<int>{1, 0}));
  EXPECT_EQ(dlrm.plans[1].tables[1].split, sj::ShardSplit::table_wise);
  EXPECT_EQ(dlrm.plans[1].tables[1].ranks, std::vector<int>{1});
  using Scheme = sj::ShardingScheme;
  EXPECT_EQ(job.sweep.sharding, (std::vector<sj::DlrmSharding>{{Scheme::table_wise, ""},
                                                               {Scheme::explicit_plan, "split2"},
                                                               {Scheme::table_wise_size_greedy, ""},
                                                               {Scheme::explicit_plan, "alldp"}}));
  EXPECT_TRUE(job.devices.memory_gib.empty());
}

TEST(DlrmJob, AbsentKeysTakeTheDocumentedDefaults) {
  const JobSpec job = parse_job_text(R"([job]
name = "small"
[workload]
kind = "dlrm"
[[workload.tables]]
rows = 10
dim = 128
pooling = 1.5
[sweep]
ranks = [1]
global_batch = [4]
sharding = ["data_parallel"]
)",
                                     kFile);
  const scaletune::job::DlrmOptions& dlrm = job.workload.dlrm;
  ASSERT_EQ(dlrm.tables.size(), 1u);
  EXPECT_EQ(dlrm.tables[0].name, "t0");
  EXPECT_DOUBLE_EQ(dlrm.tables[0].pooling, 1.5);
  EXPECT_EQ(dlrm.dense_features, 13);
  EXPECT_EQ(dlrm.bottom_mlp, (std::vector<int>{512, 256, 128}));
  EXPECT_EQ(dlrm.top_mlp, (std::vector<int>{1024, 1024, 512, 256, 1}));
  EXPECT_EQ(dlrm.index_distribution, (sj::IndexDistribution{sj::IndexLaw::uniform, 0.0}));
  EXPECT_EQ(dlrm.bag_size, sj::BagSizeLaw::poisson);
  EXPECT_EQ(dlrm.embedding_optimizer, sj::EmbeddingOptimizer::sgd);
  EXPECT_DOUBLE_EQ(dlrm.learning_rate, 0.01);
  EXPECT_TRUE(dlrm.plans.empty());
  EXPECT_EQ(job.comm.backend, sj::CommBackend::auto_select);
}

TEST(DlrmJob, AcceptsTheEdgesOfEveryRange) {
  std::string text = replaced("rows = 1000", "rows = 1099511627776");
  text = replaced("learning_rate = 0.5", "learning_rate = 1000", text);
  text = replaced("pooling = 2", "pooling = 65536", text);
  text = replaced("dense_features = 4", "dense_features = 65536", text);
  const JobSpec job = parse_job_text(text, kFile);
  EXPECT_EQ(job.workload.dlrm.tables[0].rows, std::int64_t{1} << 40);
  EXPECT_DOUBLE_EQ(job.workload.dlrm.tables[0].pooling, 65536.0);
  EXPECT_DOUBLE_EQ(job.workload.dlrm.learning_rate, 1000.0);
  EXPECT_EQ(job.workload.dlrm.dense_features, 65536);
  for (const auto& [written, canonical] :
       std::vector<std::pair<std::string, std::string>>{{"uniform", "uniform"},
                                                        {"zipf:0.5", "zipf:0.5"},
                                                        {"zipf:2", "zipf:2"},
                                                        {"zipf:1e-3", "zipf:0.001"}}) {
    const JobSpec parsed = parse_job_text(
        replaced("index_distribution = \"zipf:1.05\"", "index_distribution = \"" + written + "\""),
        kFile);
    EXPECT_EQ(sj::index_distribution_text(parsed.workload.dlrm.index_distribution), canonical);
  }
}

// ---- [predict] model ------------------------------------------------------------------------

TEST(PredictTable, ModelIsAnH5FileRelativeToTheJobFilesFolder) {
  const ScratchDir dir;
  write_file(dir.file("sub/model.h5"), "not read at parse time");
  write_file(dir.file("sub/job.toml"), kJob + "[predict]\nmodel = \"model.h5\"\n");
  EXPECT_EQ(parse_job_file(dir.file("sub/job.toml")).predict.model, dir.file("sub/model.h5"));
  write_file(dir.file("sub/abs.toml"),
             kJob + "[predict]\nmodel = \"" + dir.file("sub/model.h5") + "\"\n");
  EXPECT_EQ(parse_job_file(dir.file("sub/abs.toml")).predict.model, dir.file("sub/model.h5"));
  EXPECT_EQ(parse_job_text(kJob, kFile).predict.model, "");  // absent: none
}

TEST(PredictTable, AMissingOrMisnamedModelAndUnknownKeysAreErrors) {
  const ScratchDir dir;
  write_file(dir.file("model.txt"), "x");
  for (const std::string& model : {std::string("absent.h5"), std::string("model.txt")}) {
    write_file(dir.file("job.toml"), kJob + "[predict]\nmodel = \"" + model + "\"\n");
    try {
      parse_job_file(dir.file("job.toml"));
      ADD_FAILURE() << model << " was accepted";
    } catch (const JobError& e) {
      EXPECT_EQ(e.key(), "model") << e.what();
      EXPECT_EQ(e.line(), static_cast<int>(lines_of(kJob).size()) + 2) << e.what();
      EXPECT_TRUE(contains(e.message(), "is not a readable .h5 file")) << e.what();
      EXPECT_TRUE(contains(e.message(), "relative to the job file's folder")) << e.what();
    }
  }
  expect_error(kJob + "[predict]\nmodle = \"m.h5\"\n", "modle", "modle", "unknown key");
  expect_error(kJob + "[predict]\nmodel = 3\n", "model = 3", "model", "string");
}

// ---- tables_from CSV -----------------------------------------------------------------------

TEST(DlrmTablesCsv, ReadsRowsRelativeToTheJobFilesFolder) {
  const ScratchDir dir;
  write_file(dir.file("sub/tables.csv"),
             "name,rows,dim,pooling\nads,100,4,3\n,20,4,1.5\n\nclicks,7,4,1\n");
  write_file(dir.file("sub/job.toml"), csv_job("tables.csv"));
  const JobSpec job = parse_job_file(dir.file("sub/job.toml"));
  const auto& tables = job.workload.dlrm.tables;
  EXPECT_EQ(job.workload.dlrm.tables_from, "tables.csv");
  ASSERT_EQ(tables.size(), 3u);
  EXPECT_EQ(tables[0].name, "ads");
  EXPECT_EQ(tables[0].rows, 100);
  EXPECT_EQ(tables[0].dim, 4);
  EXPECT_DOUBLE_EQ(tables[0].pooling, 3.0);
  EXPECT_EQ(tables[1].name, "t1");  // empty name column: the default
  EXPECT_DOUBLE_EQ(tables[1].pooling, 1.5);
  EXPECT_EQ(tables[2].name, "clicks");  // the blank line is skipped
  EXPECT_EQ(tables[2].rows, 7);
}

TEST(DlrmTablesCsv, AcceptsAnAbsolutePathAndAParentFolder) {
  const ScratchDir dir;
  write_file(dir.file("tables.csv"), "name,rows,dim,pooling\nads,100,4,1\n");
  write_file(dir.file("sub/a.toml"), csv_job(dir.file("tables.csv")));
  write_file(dir.file("sub/b.toml"), csv_job("../tables.csv"));
  EXPECT_EQ(parse_job_file(dir.file("sub/a.toml")).workload.dlrm.tables.at(0).name, "ads");
  EXPECT_EQ(parse_job_file(dir.file("sub/b.toml")).workload.dlrm.tables.at(0).rows, 100);
}

/// The error of a job in `dir` reading a CSV of `csv_text`.
JobError csv_error(const ScratchDir& dir, const std::string& csv_text) {
  write_file(dir.file("tables.csv"), csv_text);
  write_file(dir.file("job.toml"), csv_job("tables.csv"));
  try {
    parse_job_file(dir.file("job.toml"));
  } catch (const JobError& e) {
    return e;
  }
  ADD_FAILURE() << "no JobError for CSV:\n" << csv_text;
  return JobError("", -1, -1, "", "");
}

TEST(DlrmTablesCsv, ErrorsNameTheCsvLineAndColumn) {
  const ScratchDir dir;
  const std::string header = "name,rows,dim,pooling\n";
  struct Case {
    std::string csv;
    int line;
    std::string key, part;
  };
  const std::vector<Case> cases = {
      {header + "a,1,4,1\nb,2,4,1\nc,abc,4,1\n", 4, "rows", "rows 'abc' is not an integer"},
      {header + "a,0,4,1\n", 2, "rows", "rows 0 is out of range"},
      {header + "a,1099511627777,4,1\n", 2, "rows", "<= 1099511627776"},
      {header + "a,1,4.5,1\n", 2, "dim", "dim '4.5' is not an integer"},
      {header + "a,1,65537,1\n", 2, "dim", "dim 65537 is out of range"},
      {header + "a,1,4,x\n", 2, "pooling", "pooling 'x' is not a number"},
      {header + "a,1,4,0.5\n", 2, "pooling", "pooling 0.5 is out of range"},
      {header + "a,1,4,nan\n", 2, "pooling", "out of range"},
      {header + "-a,1,4,1\n", 2, "name", "table name '-a' is not valid"},
      {header + "a,1,4,1\n\na,2,4,1\n", 4, "name", "is used by tables 0 and 1"},
      {header + "a,1,4\n", 2, "", "expected 4 comma-separated fields"},
      {"name,rows,dim\na,1,4\n", 1, "", "header name,rows,dim,pooling"},
      {header, 1, "", "lists no tables"},
      {header + "a,1,8,1\n", 2, "dim", "bottom_mlp's last width is 4"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.csv);
    const JobError e = csv_error(dir, c.csv);
    EXPECT_EQ(e.file(), dir.file("tables.csv"));
    EXPECT_EQ(e.line(), c.line) << e.what();
    EXPECT_EQ(e.key(), c.key) << e.what();
    EXPECT_TRUE(contains(e.message(), c.part)) << e.what();
    EXPECT_EQ(
        std::string(e.what()).rfind(dir.file("tables.csv") + ":" + std::to_string(c.line) + ":", 0),
        0u)
        << e.what();
  }
}

TEST(DlrmTablesCsv, AtMost4096Tables) {
  const ScratchDir dir;
  std::string csv = "name,rows,dim,pooling\n";
  for (int i = 0; i < 4096; ++i) csv += ",1,4,1\n";
  write_file(dir.file("tables.csv"), csv);
  write_file(dir.file("job.toml"), csv_job("tables.csv"));
  EXPECT_EQ(parse_job_file(dir.file("job.toml")).workload.dlrm.tables.size(), 4096u);
  const JobError e = csv_error(dir, csv + ",1,4,1\n");
  EXPECT_EQ(e.line(), 4098);
  EXPECT_TRUE(contains(e.message(), "at most 4096")) << e.what();
}

TEST(DlrmTablesCsv, AMissingCsvIsAnErrorAtTablesFrom) {
  const ScratchDir dir;
  const std::string text = csv_job("absent.csv");
  write_file(dir.file("job.toml"), text);
  try {
    parse_job_file(dir.file("job.toml"));
    ADD_FAILURE() << "parsed without error";
  } catch (const JobError& e) {
    EXPECT_EQ(e.file(), dir.file("job.toml"));
    EXPECT_EQ(e.line(), line_of(text, "tables_from"));
    EXPECT_EQ(e.key(), "tables_from");
    EXPECT_TRUE(contains(e.message(), dir.file("absent.csv"))) << e.what();
  }
}

// ---- [workload] errors ---------------------------------------------------------------------

TEST(DlrmJobErrors, TablesOrTablesFromExactlyOnce) {
  std::string text = replaced("kind = \"dlrm\"", "kind = \"dlrm\"\ntables_from = \"t.csv\"");
  expect_error(text, "tables_from", "tables_from", "not both");
  const std::string none = R"([job]
name = "n"
[workload]
kind = "dlrm"
[sweep]
ranks = [1]
global_batch = [4]
sharding = ["table_wise"]
)";
  expect_error(none, "", "tables", "workload.tables is required");
  expect_error(replaced("kind = \"dlrm\"", "kind = \"dlrm\"\ntables = []", none), "tables = []",
               "tables", "at least one table");
  expect_error(replaced("kind = \"dlrm\"", "kind = \"dlrm\"\ntables = 3", none), "tables = 3",
               "tables", "integer where an array of tables");
}

TEST(DlrmJobErrors, TableKeysAreCheckedWhereTheyAreWritten) {
  expect_error(replaced("rows = 1000", "rows = 0"), "rows = 0", "rows", "rows must be >= 1");
  expect_error(replaced("rows = 1000", "rows = 1099511627777"), "rows = 1099511627777", "rows",
               "<= 1099511627776");
  expect_error(replaced("rows = 1000", "rows = 1.5"), "rows = 1.5", "rows", "float where");
  expect_error(replaced("rows = 1000", "rows = 1000\nrow = 1"), "row = 1", "row",
               "did you mean 'rows'?");
  expect_error(replaced("dim = 4", "dim = 65537"), "dim = 65537", "dim",
               "dim must be >= 1 and <= 65536");
  expect_error(replaced("pooling = 2", "pooling = 0.5"), "pooling = 0.5", "pooling",
               "pooling must be >= 1 and <= 65536");
  expect_error(replaced("name = \"users\"", "name = \"a b\""), "name = \"a b\"", "name",
               "table name 'a b' is not valid");
  // The second table's default name "t1" repeats the first's: at the second table's header.
  const std::string twice = replaced("name = \"users\"", "name = \"t1\"");
  const JobError e = error_of(twice);
  EXPECT_EQ(e.line(), line_of(twice, "rows = 50") - 1) << e.what();
  EXPECT_EQ(e.key(), "name");
  EXPECT_TRUE(contains(e.message(), "table name 't1' is used by tables 0 and 1")) << e.what();
}

TEST(DlrmJobErrors, AMissingTableKeyIsAnErrorAtItsTable) {
  // The second [[workload.tables]] has no pooling: the error points at that entry's header.
  const std::string text = replaced("pooling = 1", "");
  const JobError e = error_of(text);
  EXPECT_EQ(e.key(), "pooling") << e.what();
  const int second = line_of(text, "rows = 50") - 1;  // the second "[[workload.tables]]"
  EXPECT_EQ(e.line(), second) << e.what();
  EXPECT_TRUE(contains(e.message(), "workload.tables[1].pooling is required")) << e.what();
}

TEST(DlrmJobErrors, MlpWidthsAndTheirCrossChecks) {
  expect_error(replaced("dense_features = 4", "dense_features = 0"), "dense_features = 0",
               "dense_features", "dense_features must be >= 1");
  expect_error(replaced("bottom_mlp = [8, 4]", "bottom_mlp = []"), "bottom_mlp = []", "bottom_mlp",
               "at least one layer width");
  expect_error(replaced("top_mlp = [8, 1]", "top_mlp = [8, 0]"), "top_mlp = [8, 0]", "top_mlp",
               "top_mlp must be >= 1 and <= 65536");
  expect_error(replaced("top_mlp = [8, 1]", "top_mlp = [8, 2]"), "top_mlp = [8, 2]", "top_mlp",
               "top_mlp's last width is 2; it must be 1");
  // bottom_mlp's last differs from the first table's dim: the error is at that dim, naming both.
  const std::string text = replaced("bottom_mlp = [8, 4]", "bottom_mlp = [8, 16]");
  expect_error(text, "dim = 4", "dim", "table 'users' has dim 4 but bottom_mlp's last width is 16");
  // Without bottom_mlp the default's last width, 128, applies.
  expect_error(replaced("bottom_mlp = [8, 4]", ""), "dim = 4", "dim",
               "bottom_mlp's last width is 128 (the default)");
}

TEST(DlrmJobErrors, DistributionBagSizeOptimizerAndLearningRate) {
  const std::string line = "index_distribution = \"zipf:1.05\"";
  for (const std::string bad : {"normal", "zipf:", "zipf:abc", "zipf:0", "zipf:-1", "zipf:inf",
                                "zipf:nan", "zipf:1.5x", "zipf: 1"}) {
    const std::string written = "index_distribution = \"" + bad + "\"";
    expect_error(replaced(line, written), written, "index_distribution",
                 "index_distribution '" + bad + "' is not valid");
  }
  expect_error(replaced("bag_size = \"fixed\"", "bag_size = \"fixd\""), "bag_size", "bag_size",
               "did you mean 'fixed'?");
  // bag_size "fixed" with a fractional pooling: at that table's pooling.
  expect_error(replaced("pooling = 1", "pooling = 2.5"), "pooling = 2.5", "pooling",
               "table 't1' has pooling 2.5 but bag_size = \"fixed\" needs an integer pooling");
  expect_error(replaced("embedding_optimizer = \"rowwise_adagrad\"",
                        "embedding_optimizer = \"rowwise_adagrd\""),
               "embedding_optimizer", "embedding_optimizer", "did you mean 'rowwise_adagrad'?");
  expect_error(replaced("learning_rate = 0.5", "learning_rate = 0"), "learning_rate",
               "learning_rate", "learning_rate must be > 0 and <= 1000");
  expect_error(replaced("learning_rate = 0.5", "learning_rate = 1000.5"), "learning_rate",
               "learning_rate", "learning_rate must be > 0 and <= 1000");
}

TEST(DlrmJobErrors, PlansPlaceEveryTableOnceWithValidRanks) {
  const std::string users = "users = { split = \"row_wise\", ranks = [1, 0] }";
  const std::string t1 = "t1 = { split = \"table_wise\", ranks = [1] }";
  expect_error(replaced(t1, "t2 = { split = \"table_wise\", ranks = [1] }"), "t2 =", "t2",
               "plan 'split2' places unknown table 't2'; did you mean 't1'?");
  expect_error(replaced(t1, ""), "[workload.plans.split2]", "split2",
               "plan 'split2' does not place table 't1'");
  expect_error(replaced(t1, "t1 = { split = \"table_wise\", ranks = [0, 1] }"), "t1 = {", "ranks",
               "exactly one rank, found 2");
  expect_error(replaced(users, "users = { split = \"row_wise\", ranks = [] }"),
               "users = { split = \"row_wise\"", "ranks", "ranks must not be an empty list");
  expect_error(replaced(users, "users = { split = \"row_wise\", ranks = [1, 1] }"),
               "users = { split = \"row_wise\"", "ranks", "lists rank 1 twice");
  expect_error(replaced(users, "users = { split = \"row_wise\", ranks = [1048576] }"),
               "users = { split = \"row_wise\"", "ranks", "ranks must be >= 0 and <= 1048575");
  expect_error(replaced(users, "users = { split = \"row_wise\" }"),
               "users = { split = \"row_wise\"", "ranks", "split \"row_wise\" needs ranks");
  expect_error(replaced(users, "users = { split = \"rows_wise\", ranks = [0] }"), "rows_wise",
               "split", "did you mean 'row_wise'?");
  expect_error(replaced(users, "users = { ranks = [0] }"), "users = { ranks", "split",
               "needs split");
  expect_error(replaced(users, "users = { split = \"row_wise\", ranks = [0], rank = 1 }"),
               "rank = 1", "rank", "did you mean 'ranks'?");
  expect_error(replaced("users = { split = \"data_parallel\" }",
                        "users = { split = \"data_parallel\", ranks = [0] }"),
               "data_parallel\", ranks", "ranks", "takes no ranks");
  expect_error(replaced(users, "users = 3"), "users = 3", "users", "integer where a table");
  expect_error(replaced("[workload.plans.alldp]", "[workload.plans.row_wise]"),
               "[workload.plans.row_wise]", "row_wise", "a built-in sharding scheme");
  // Its configuration ids would equal table_wise:size_greedy's.
  expect_error(replaced("[workload.plans.alldp]", "[workload.plans.table_wise-size_greedy]"),
               "[workload.plans.table_wise-size_greedy]", "table_wise-size_greedy",
               "reads in configuration ids as) a built-in sharding scheme");
}

// ---- [sweep] sharding ----------------------------------------------------------------------

TEST(DlrmSweepErrors, ShardingIsRequiredForDlrmOnly) {
  const std::string sharding =
      "sharding = [\"table_wise\", \"split2\", \"table_wise:size_greedy\", \"alldp\"]";
  const JobError missing = error_of(replaced(sharding, ""));
  EXPECT_EQ(missing.line(), 0);
  EXPECT_EQ(missing.key(), "sharding");
  EXPECT_EQ(missing.message(),
            "sharding is required for workload kind dlrm; e.g. sharding = [\"table_wise\", "
            "\"row_wise\"]");
  const std::string resnet = R"([job]
name = "r"
[workload]
kind = "resnet50"
[sweep]
ranks = [1]
global_batch = [4]
sharding = ["table_wise"]
)";
  expect_error(resnet, "sharding", "sharding", "only kind dlrm shards embedding tables");
  const std::string collectives = R"([job]
name = "c"
[workload]
kind = "collectives"
[sweep]
ranks = [1]
sharding = ["table_wise"]
)";
  expect_error(collectives, "sharding", "sharding", "sweeps ranks only");
}

TEST(DlrmSweepErrors, ShardingValuesAreKnownAndDistinct) {
  const std::string sharding =
      "sharding = [\"table_wise\", \"split2\", \"table_wise:size_greedy\", \"alldp\"]";
  expect_error(replaced(sharding, "sharding = [\"row_wse\"]"), "sharding", "sharding",
               "unknown sharding 'row_wse'; expected one of data_parallel, table_wise, "
               "table_wise:size_greedy, table_wise:lookup_greedy, table_wise:size_lookup_greedy, "
               "table_wise:norm_lookup_greedy, table_wise:random, row_wise, column_wise, auto, "
               "alldp, split2 (built-in schemes, auto, and the plans of [workload.plans]); did "
               "you mean 'row_wise'?");
  expect_error(replaced(sharding, "sharding = [\"split3\"]"), "sharding", "sharding",
               "did you mean 'split2'?");
  expect_error(replaced(sharding, "sharding = [\"alldp\", \"alldp\"]"), "sharding", "sharding",
               "sharding lists alldp twice");
  expect_error(replaced(sharding, "sharding = []"), "sharding", "sharding",
               "a sweep list must not be empty");
  expect_error(replaced(sharding, "sharding = \"row_wise\""), "sharding", "sharding",
               "string where a list of strings is expected");
}

TEST(DlrmSweep, AutoIsChosenLaterAndNoPlanMayBeCalledSo) {
  const std::string sharding =
      "sharding = [\"table_wise\", \"split2\", \"table_wise:size_greedy\", \"alldp\"]";
  const JobSpec job = parse_job_text(replaced(sharding, "sharding = [\"auto\"]"), kFile);
  const std::vector<Config> configs = expand_sweep(job);
  ASSERT_EQ(configs.size(), 2u);  // ranks 1 and 2
  for (const Config& c : configs) {
    const auto& value = std::get<sj::DlrmSharding>(c.sharding);
    EXPECT_EQ(value.scheme, sj::ShardingScheme::automatic);
    EXPECT_EQ(value.choice, nullptr);  // chosen by prediction before the configuration runs
    EXPECT_EQ(config_sharding_text(c), "auto");
    EXPECT_TRUE(c.id.ends_with("-auto")) << c.id;
  }
  expect_error(replaced("[workload.plans.alldp]", "[workload.plans.auto]"), "[workload.plans.auto]",
               "auto", "is (or reads in configuration ids as) a built-in sharding scheme or auto");
}

TEST(DlrmSweepErrors, APlanMustApplyToSomeRanksValue) {
  // split2 names rank 1, so it needs 2 or more ranks.
  const std::string sharding =
      "sharding = [\"table_wise\", \"split2\", \"table_wise:size_greedy\", \"alldp\"]";
  const std::string text = replaced("ranks = [1, 2]", "ranks = [1]");
  expect_error(text, "sharding", "sharding",
               "plan 'split2' places a shard on rank 1, so it needs at least 2 ranks, but ranks "
               "lists 1");
  // Only plans that need 2 ranks for ranks = [1, 2]: ranks 1 has no sharding.
  expect_error(replaced(sharding, "sharding = [\"split2\"]"), "ranks = [1, 2]", "ranks",
               "no sharding entry applies to 1 rank");
}

// ---- expansion -----------------------------------------------------------------------------

/// Whether a plan of `job` named `sharding` (or a built-in scheme) fits `ranks`, written
/// naively: every named rank must be below ranks.
bool fits(const JobSpec& job, const std::string& sharding, int ranks) {
  for (const scaletune::job::ExplicitPlan& plan : job.workload.dlrm.plans)
    if (plan.name == sharding)
      for (const scaletune::job::TablePlacement& placement : plan.tables)
        for (const int rank : placement.ranks)
          if (rank >= ranks) return false;
  return true;
}

TEST(DlrmSweep, ShardingIsInnermostAndPlansOnlyMeetRanksThatFit) {
  const JobSpec job = parse_job_text(
      replaced("global_batch = [8]", "global_batch = [8, 16]\nbatch_split = [\"even\", [3, 1]]",
               replaced("ranks = [1, 2]", "ranks = [1, 2, 4]")),
      kFile);
  std::vector<std::string> expected;
  for (const int ranks : {1, 2, 4})
    for (const int batch : {8, 16})
      for (const std::string& split : {std::string("even"), std::string("w3_1")}) {
        if (split == "w3_1" && ranks != 2) continue;
        for (const sj::DlrmSharding& value : job.sweep.sharding) {
          const std::string sharding = sj::sharding_text(value);
          if (!fits(job, sharding, ranks)) continue;
          std::string tail = sharding;
          std::ranges::replace(tail, ':', '-');
          expected.push_back("dlrm-r" + std::to_string(ranks) + "-b" + std::to_string(batch) + "-" +
                             split + "-fp32-" + tail);
        }
      }
  const std::vector<Config> configs = expand_sweep(job);
  std::vector<std::string> ids;
  for (const Config& c : configs) ids.push_back(c.id);
  EXPECT_EQ(ids, expected);
  // ranks 1: split2 (needs 2) left out, the other three kept.
  ASSERT_GE(configs.size(), 3u);
  EXPECT_EQ(config_sharding_text(configs[0]), "table_wise");
  EXPECT_EQ(config_sharding_text(configs[1]), "table_wise:size_greedy");
  EXPECT_EQ(config_sharding_text(configs[2]), "alldp");
  EXPECT_EQ(configs[2].id, "dlrm-r1-b8-even-fp32-alldp");
  for (const Config& c : configs) {
    EXPECT_EQ(c.workload, "dlrm");
    EXPECT_EQ(c.precision, sj::DataType::fp32);
    EXPECT_EQ(std::accumulate(c.per_rank_batch.begin(), c.per_rank_batch.end(), 0), c.global_batch);
  }
  // 1 rank: 2 batches x 3 shardings; 2 ranks: 2 batches x 2 splits x 4; 4 ranks: 2 x 4.
  EXPECT_EQ(configs.size(), 6u + 16u + 8u);
}

TEST(DlrmSweep, ConfigIdReplacesColonsInTheSharding) {
  const Config config{.id = "",
                      .workload = "dlrm",
                      .ranks = 2,
                      .global_batch = 64,
                      .batch_split = "even",
                      .per_rank_batch = {32, 32},
                      .precision = sj::DataType::fp32,
                      .sharding = sj::DlrmSharding{sj::ShardingScheme::table_wise_size_greedy, ""}};
  EXPECT_EQ(scaletune::job::config_id(config), "dlrm-r2-b64-even-fp32-table_wise-size_greedy");
}

// ---- [devices] -----------------------------------------------------------------------------

TEST(DevicesTable, MemoryGibIsANumberOrAList) {
  const std::string one = kJob + "[devices]\nmemory_gib = 16\n";
  EXPECT_EQ(parse_job_text(one, kFile).devices.memory_gib, std::vector<double>{16.0});
  const std::string list = kJob + "[devices]\nmemory_gib = [80, 40.5, 1048576]\n";
  EXPECT_EQ(parse_job_text(list, kFile).devices.memory_gib,
            (std::vector<double>{80.0, 40.5, 1048576.0}));
  EXPECT_TRUE(parse_job_text(kJob + "[devices]\n", kFile).devices.memory_gib.empty());
}

TEST(DevicesTable, BadValuesAndKeysAreErrors) {
  expect_error(kJob + "[devices]\nmemory_gib = 0\n", "memory_gib", "memory_gib",
               "memory_gib must be > 0 and <= 1.04858e+06");
  expect_error(kJob + "[devices]\nmemory_gib = [16, 1048577]\n", "memory_gib", "memory_gib",
               "memory_gib must be > 0");
  expect_error(kJob + "[devices]\nmemory_gib = []\n", "memory_gib", "memory_gib",
               "must not be an empty list");
  expect_error(kJob + "[devices]\nmemory_gib = \"16\"\n", "memory_gib", "memory_gib",
               "string where a number or a list of numbers");
  expect_error(kJob + "[devices]\nmemory_gb = 16\n", "memory_gb", "memory_gb",
               "unknown key in [devices]; did you mean 'memory_gib'?");
}

// ---- bad job files -------------------------------------------------------------------------

TEST(DlrmBadJobFiles, NameTheFileLineAndKey) {
  struct Case {
    std::string text, needle, key, part;
  };
  const std::vector<Case> cases = {
      {replaced("dim = 4", "dim = 8"), "dim = 8", "dim", "bottom_mlp's last width is 4"},
      {replaced("t1 = { split = \"table_wise\", ranks = [1] }",
                "usres = { split = \"table_wise\", ranks = [1] }"),
       "usres", "usres", "did you mean 'users'?"},
      {replaced("sharding = [\"table_wise\", \"split2\", \"table_wise:size_greedy\", \"alldp\"]",
                "sharding = [\"table_wise:lookup_gredy\"]"),
       "sharding", "sharding", "did you mean 'table_wise:lookup_greedy'?"},
  };
  const ScratchDir dir;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.part);
    const std::string path = dir.file("bad.toml");
    write_file(path, c.text);
    try {
      parse_job_file(path);
      ADD_FAILURE() << "parsed without error";
    } catch (const JobError& e) {
      const int line = line_of(c.text, c.needle);
      EXPECT_EQ(std::string(e.what()).rfind(path + ":" + std::to_string(line) + ":", 0), 0u)
          << e.what();
      EXPECT_TRUE(contains(e.what(), "key '" + c.key + "'")) << e.what();
      EXPECT_TRUE(contains(e.message(), c.part)) << e.what();
    }
  }
}

// ---- the plan text -------------------------------------------------------------------------

TEST(DlrmPlanText, ShowsOptionsDevicesAndTheShardingOfEachConfiguration) {
  const JobSpec job = parse_job_text(kJob + "[devices]\nmemory_gib = [16, 32]\n", kFile);
  const std::vector<std::string> lines =
      lines_of(scaletune::job::format_plan(job, expand_sweep(job), 1));
  // header, devices, names, units, 3 + 4 configurations, total
  ASSERT_EQ(lines.size(), 1u + 1u + 2u + 7u + 1u);
  EXPECT_EQ(lines[0],
            "job d: workload dlrm (tables=2 total_rows=1050 dim=4 dense_features=4 "
            "bottom_mlp=8,4 top_mlp=8,1 index_distribution=zipf:1.05 bag_size=fixed "
            "embedding_optimizer=rowwise_adagrad learning_rate=0.5 plans=alldp,split2), output "
            "results/d.h5");
  EXPECT_EQ(lines[1], "devices: memory_gib 16,32 (rank 0, 1, ...)");
  EXPECT_TRUE(std::regex_match(
      lines[2],
      std::regex(
          R"(#\s+id\s+ranks\s+global_batch\s+per_rank_batch\s+precision\s+sharding\s+runs)")))
      << lines[2];
  EXPECT_TRUE(std::regex_match(
      lines[5],
      std::regex(
          R"(1\s+dlrm-r1-b8-even-fp32-table_wise-size_greedy\s+1\s+8\s+8x1\s+fp32\s+table_wise:size_greedy\s+yes)")))
      << lines[5];
  EXPECT_TRUE(std::regex_match(
      lines[8],
      std::regex(
          R"(4\s+dlrm-r2-b8-even-fp32-split2\s+2\s+8\s+4x2\s+fp32\s+split2\s+skipped \(needs 2 ranks\))")))
      << lines[8];
  const JobSpec one = parse_job_text(kJob + "[devices]\nmemory_gib = 80\n", kFile);
  EXPECT_EQ(lines_of(scaletune::job::format_plan(one, expand_sweep(one), 0)).at(1),
            "devices: memory_gib 80 per rank");
}

}  // namespace

namespace {

TEST(DlrmSweep, PrecisionSelectsTheTablesStorage) {
  const std::string text = replaced(
      "global_batch = [8]", "global_batch = [8]\nprecision = [\"fp32\", \"bf16\", \"fp16\"]");
  const std::vector<Config> configs = expand_sweep(parse_job_text(text, kFile));
  std::vector<std::string> precisions;
  for (const Config& c : configs)
    if (c.ranks == 1 && config_sharding_text(c) == "table_wise")
      precisions.emplace_back(data_type_text(c.precision));
  EXPECT_EQ(precisions, (std::vector<std::string>{"fp32", "bf16", "fp16"}));
  EXPECT_TRUE(std::ranges::any_of(configs, [](const Config& c) {
    return c.id == "dlrm-r2-b8-even-bf16-table_wise-size_greedy";
  }));
}

}  // namespace
