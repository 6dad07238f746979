// Job-file parsing and validation: the shared bad-job corpus, every rule of the [job],
// [workload], [sweep], [run] and [comm] tables, and the job files shipped in jobs/.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/job/job.hpp"
#include "harness/job/job_error.hpp"
#include "harness/job/job_parser.hpp"
#include "tests/support/job_text.hpp"

namespace {

using scaletune::job::CommBackend;
using scaletune::job::data_type_text;
using scaletune::job::DataType;
using scaletune::job::JobError;
using scaletune::job::JobSpec;
using scaletune::job::parse_job_file;
using scaletune::job::parse_job_text;

constexpr const char* kFile = "inline.toml";

const std::string kValidJob = R"([job]
name = "t"

[workload]
kind = "resnet50"
image_size = 32
width = 0.25
num_classes = 10

[sweep]
ranks = [1, 2]
global_batch = [8]

[run]
iterations = 3

[comm]
backend = "mpi"
)";

/// A valid job of kind "collectives" that sets every [workload] key and uses backend "nccl".
const std::string kValidCollectivesJob = R"([job]
name = "c"

[workload]
kind = "collectives"
ops = ["all_reduce", "broadcast"]
min_bytes = 8
max_bytes = 1024
step_factor = 2
dtype = "fp32"
redop = "sum"
in_place = true

[sweep]
ranks = [1, 2]

[run]
iterations = 3

[comm]
backend = "nccl"
)";

using scaletune::testing_support::contains;
using scaletune::testing_support::job_error_of;
using scaletune::testing_support::line_of;
using scaletune::testing_support::lines_of;

/// `base` (kValidJob unless given) with the line of `key` in [table] replaced by `line` (put
/// first in the table when the key is not there; the key removed when `line` is empty).
std::string edited(const std::string& table, const std::string& key, const std::string& line,
                   const std::string& base = kValidJob) {
  std::vector<std::string> lines = lines_of(base);
  auto header = std::find(lines.begin(), lines.end(), "[" + table + "]");
  EXPECT_NE(header, lines.end()) << "no table " << table;
  auto end = std::find_if(header + 1, lines.end(),
                          [](const std::string& l) { return !l.empty() && l.front() == '['; });
  auto old = std::find_if(header + 1, end,
                          [&](const std::string& l) { return l.rfind(key + " =", 0) == 0; });
  if (old != end) {
    old = lines.erase(old);
  } else {
    old = header + 1;
  }
  if (!line.empty()) lines.insert(old, line);
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  return text;
}

/// 1-based column of the last occurrence of `needle` on its line.
int column_of_last(const std::string& text, const std::string& needle) {
  const std::size_t at = text.rfind(needle);
  const std::size_t line_start = text.rfind('\n', at);
  return static_cast<int>(at - (line_start == std::string::npos ? 0 : line_start + 1)) + 1;
}

/// A job with the given [sweep] lines; the first of them is line 6.
std::string sweep_job(const std::string& sweep_lines) {
  return "[job]\nname = \"w\"\n[workload]\nkind = \"resnet50\"\n[sweep]\n" + sweep_lines;
}

JobError error_of(const std::string& text, const std::string& path = kFile) {
  return job_error_of(text, path);
}

// ---- the shared corpus of bad jobs ---------------------------------------------------------

struct CorpusRow {
  std::string file, line, key, what;
};

std::vector<CorpusRow> corpus_rows() {
  std::ifstream in(std::string(SCALETUNE_SHARED_DIR) + "/data/bad-jobs/expected.tsv");
  std::vector<CorpusRow> rows;
  std::string line;
  std::getline(in, line);  // header: file line key what
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream fields_in(line);
    for (std::string field; std::getline(fields_in, field, '\t');) fields.push_back(field);
    fields.resize(4);
    rows.push_back({fields[0], fields[1], fields[2], fields[3]});
  }
  return rows;
}

TEST(JobCorpus, EveryBadJobNamesItsLineAndKey) {
  const std::vector<CorpusRow> rows = corpus_rows();
  ASSERT_GE(rows.size(), 10u);
  for (const CorpusRow& row : rows) {
    SCOPED_TRACE(row.file);
    const std::string path = std::string(SCALETUNE_SHARED_DIR) + "/data/bad-jobs/" + row.file;
    try {
      parse_job_file(path);
      ADD_FAILURE() << "parsed without error";
    } catch (const JobError& e) {
      const int line = row.line.empty() ? 0 : std::stoi(row.line);
      EXPECT_EQ(e.line(), line) << e.what();
      EXPECT_EQ(e.key(), row.key) << e.what();
      EXPECT_EQ(e.file(), path);
      const std::string where = line > 0 ? path + ":" + row.line + ":" : path + ": ";
      EXPECT_EQ(std::string(e.what()).rfind(where, 0), 0u) << e.what();
      if (!row.key.empty()) {
        EXPECT_TRUE(contains(e.what(), "'" + row.key + "'")) << e.what();
      }
      // "what" is "DESCRIPTION" or "DESCRIPTION; hint WORD"; syntax errors are TOML++'s words.
      const std::size_t hint = row.what.find("; hint ");
      if (row.key.empty()) {
        EXPECT_TRUE(contains(e.message(), "TOML syntax error")) << e.what();
      } else {
        EXPECT_TRUE(contains(e.message(), row.what.substr(0, hint))) << e.what();
      }
      if (hint != std::string::npos) {
        EXPECT_TRUE(contains(e.message(), "did you mean '" + row.what.substr(hint + 7) + "'?"))
            << e.what();
      }
    }
  }
}

// ---- the error type ------------------------------------------------------------------------

TEST(JobErrorText, NamesFileLineColumnKeyAndMessage) {
  const JobError e("jobs/x.toml", 7, 1, "image_sise",
                   "unknown key in [workload]; did you mean 'image_size'?");
  EXPECT_STREQ(e.what(),
               "jobs/x.toml:7:1: key 'image_sise': unknown key in [workload]; did you mean "
               "'image_size'?");
  EXPECT_EQ(e.line(), 7);
  EXPECT_EQ(e.column(), 1);
  EXPECT_EQ(e.key(), "image_sise");
  EXPECT_EQ(e.file(), "jobs/x.toml");
}

TEST(JobErrorText, LeavesOutWhatIsUnknown) {
  EXPECT_STREQ(JobError("a.toml", 0, 0, "name", "job.name is required").what(),
               "a.toml: key 'name': job.name is required");
  EXPECT_STREQ(JobError("a.toml", 3, 0, "", "bad").what(), "a.toml:3: bad");
  EXPECT_STREQ(JobError("a.toml", 3, 9, "", "bad").what(), "a.toml:3:9: bad");
}

TEST(JobErrorText, ParserErrorReadsLikeTheDocumentedExample) {
  const std::string text = edited("workload", "image_size", "image_sise = 32");
  const JobError e = error_of(text);
  EXPECT_EQ(std::string(e.what()),
            std::string(kFile) + ":" + std::to_string(line_of(text, "image_sise")) +
                ":1: key 'image_sise': unknown key in [workload]; did you mean 'image_size'?");
}

// ---- valid jobs and defaults ---------------------------------------------------------------

TEST(JobParser, AppliesDefaults) {
  const std::string text =
      "[job]\nname = \"small\"\n[workload]\nkind = \"resnet50\"\n"
      "[sweep]\nranks = [1]\nglobal_batch = [4]\n";
  const JobSpec job = parse_job_text(text, kFile);
  EXPECT_EQ(job.path, kFile);
  EXPECT_EQ(job.toml_text, text);
  EXPECT_EQ(job.job.name, "small");
  EXPECT_EQ(job.job.output, "results/small.h5");
  EXPECT_EQ(job.workload.kind, "resnet50");
  EXPECT_EQ(job.workload.resnet50.image_size, 224);
  EXPECT_DOUBLE_EQ(job.workload.resnet50.width, 1.0);
  EXPECT_EQ(job.workload.resnet50.num_classes, 1000);
  EXPECT_FALSE(job.workload.resnet50.sync_batch_norm);
  EXPECT_EQ(job.sweep.batch_split, std::vector<std::string>{"even"});
  EXPECT_EQ(job.sweep.split_weights, std::vector<std::vector<double>>{{}});
  EXPECT_EQ(job.sweep.precision, std::vector<DataType>{DataType::fp32});
  EXPECT_EQ(job.run.warmup, 3);
  EXPECT_EQ(job.run.iterations, 20);
  EXPECT_DOUBLE_EQ(job.run.timeout_s, 600.0);
  EXPECT_EQ(job.run.seed, 1u);
  EXPECT_EQ(job.comm.backend, CommBackend::auto_select);
  EXPECT_DOUBLE_EQ(job.comm.bucket_mib, 25.0);
  EXPECT_TRUE(job.comm.overlap);
  EXPECT_EQ(job.devices.kind, scaletune::job::DeviceKindRequest::auto_select);
}

TEST(JobParser, ReadsEveryKey) {
  const std::string text = R"([job]
name = "full"
output = "out/full.h5"
[workload]
kind = "resnet50"
image_size = 64
width = 2
num_classes = 100
sync_batch_norm = true
[sweep]
ranks = [1, 3]
global_batch = [96, 192]
batch_split = ["even", [0.5, 0.25, 0.25]]
precision = ["fp32"]
[run]
warmup = 0
iterations = 7
timeout_s = 1.5
seed = 9223372036854775807
[comm]
backend = "mpi"
bucket_mib = 12.5
overlap = false
[devices]
kind = "host"
)";
  const JobSpec job = parse_job_text(text, kFile);
  EXPECT_EQ(job.job.output, "out/full.h5");
  EXPECT_EQ(job.workload.resnet50.image_size, 64);
  EXPECT_DOUBLE_EQ(job.workload.resnet50.width, 2.0);
  EXPECT_EQ(job.workload.resnet50.num_classes, 100);
  EXPECT_TRUE(job.workload.resnet50.sync_batch_norm);
  EXPECT_EQ(job.sweep.ranks, (std::vector<int>{1, 3}));
  EXPECT_EQ(job.sweep.global_batch, (std::vector<int>{96, 192}));
  EXPECT_EQ(job.sweep.batch_split, (std::vector<std::string>{"even", "0.5,0.25,0.25"}));
  EXPECT_EQ(job.sweep.split_weights, (std::vector<std::vector<double>>{{}, {0.5, 0.25, 0.25}}));
  EXPECT_EQ(job.run.warmup, 0);
  EXPECT_EQ(job.run.iterations, 7);
  EXPECT_DOUBLE_EQ(job.run.timeout_s, 1.5);
  EXPECT_EQ(job.run.seed, 9223372036854775807u);
  EXPECT_EQ(job.comm.backend, CommBackend::mpi);
  EXPECT_DOUBLE_EQ(job.comm.bucket_mib, 12.5);
  EXPECT_FALSE(job.comm.overlap);
  EXPECT_EQ(job.devices.kind, scaletune::job::DeviceKindRequest::host);
}

// Training kinds run on CUDA where the launch has devices, so NCCL may serve them; whether a
// device is there is decided at run time.
TEST(JobParser, AcceptsTheNcclBackendForResnet50) {
  const std::string text = edited("comm", "backend", "backend = \"nccl\"");
  EXPECT_EQ(parse_job_text(text, kFile).comm.backend, CommBackend::nccl);
}

TEST(JobParser, AcceptsTheEdgesOfEveryRange) {
  std::string text = edited("workload", "image_size", "image_size = 32");
  const JobSpec low = parse_job_text(text, kFile);
  EXPECT_EQ(low.workload.resnet50.image_size, 32);
  EXPECT_DOUBLE_EQ(
      parse_job_text(edited("workload", "width", "width = 4"), kFile).workload.resnet50.width, 4.0);
  EXPECT_EQ(parse_job_text(edited("workload", "num_classes", "num_classes = 2"), kFile)
                .workload.resnet50.num_classes,
            2);
  EXPECT_EQ(parse_job_text(edited("run", "warmup", "warmup = 0"), kFile).run.warmup, 0);
  EXPECT_EQ(parse_job_text(edited("run", "iterations", "iterations = 1"), kFile).run.iterations, 1);
  EXPECT_EQ(parse_job_text(edited("run", "seed", "seed = 0"), kFile).run.seed, 0u);
}

TEST(JobParser, AcceptsTheUpperEdgesOfEveryRange) {
  auto parsed = [](const std::string& table, const std::string& line) {
    return parse_job_text(edited(table, line.substr(0, line.find(" =")), line), kFile);
  };
  EXPECT_EQ(parsed("workload", "image_size = 8192").workload.resnet50.image_size, 8192);
  EXPECT_EQ(parsed("workload", "num_classes = 10000000").workload.resnet50.num_classes, 10000000);
  EXPECT_EQ(parsed("run", "warmup = 1000000").run.warmup, 1000000);
  EXPECT_EQ(parsed("run", "iterations = 1000000").run.iterations, 1000000);
  EXPECT_DOUBLE_EQ(parsed("run", "timeout_s = 1e7").run.timeout_s, 1e7);
  EXPECT_DOUBLE_EQ(parsed("comm", "bucket_mib = 0.0009765625").comm.bucket_mib, 1.0 / 1024);
  EXPECT_DOUBLE_EQ(parsed("comm", "bucket_mib = 1048576").comm.bucket_mib, 1048576.0);
  const JobSpec big =
      parse_job_text(sweep_job("ranks = [1048576]\nglobal_batch = [1073741824]\n"), kFile);
  EXPECT_EQ(big.sweep.ranks, std::vector<int>{1 << 20});
  EXPECT_EQ(big.sweep.global_batch, std::vector<int>{1 << 30});
}

TEST(JobParser, AcceptsNamesOfFileNameCharacters) {
  for (const std::string& name :
       {std::string(128, 'n'), std::string("a.b_c-D9"), std::string("9lives"), std::string("x")}) {
    SCOPED_TRACE(name);
    const JobSpec job = parse_job_text(edited("job", "name", "name = \"" + name + "\""), kFile);
    EXPECT_EQ(job.job.name, name);
    EXPECT_EQ(job.job.output, "results/" + name + ".h5");
  }
}

TEST(JobParser, AcceptsAbsoluteAndRelativeOutputPaths) {
  for (const std::string output : {"/tmp/run.h5", "../elsewhere/run.h5", "run.h5", "a b/c.h5"}) {
    SCOPED_TRACE(output);
    EXPECT_EQ(
        parse_job_text(edited("job", "output", "output = \"" + output + "\""), kFile).job.output,
        output);
  }
}

TEST(JobPositions, WeightsWithAnInfiniteSumAreReportedAtTheirList) {
  // The user's reports: a segfault in plan, and per-rank batch -2147483646x2.
  for (const std::string weights : {"[1e308, 1e308]", "[1.7e308, 1.7e308]"}) {
    SCOPED_TRACE(weights);
    const std::string text =
        sweep_job("ranks = [2]\nglobal_batch = [8]\nbatch_split = [" + weights + "]\n");
    const JobError e = error_of(text);
    EXPECT_EQ(e.key(), "batch_split");
    EXPECT_EQ(e.line(), 8);
    EXPECT_EQ(e.column(), column_of_last(text, weights));
    EXPECT_TRUE(contains(e.message(), "sum to infinity")) << e.what();
  }
}

TEST(JobParser, ExplicitWeightsSplitWhatEvenCannot) {
  // 7 samples do not split evenly over 2 ranks, but weights [1, 1] give 4 and 3.
  const JobSpec job =
      parse_job_text(sweep_job("ranks = [2]\nglobal_batch = [7]\nbatch_split = [[1, 1]]\n"), kFile);
  EXPECT_EQ(job.sweep.ranks, std::vector<int>{2});
  EXPECT_EQ(job.sweep.batch_split, std::vector<std::string>{"1,1"});
  EXPECT_EQ(job.sweep.split_weights, (std::vector<std::vector<double>>{{1.0, 1.0}}));
}

TEST(JobParser, WeightListsApplyOnlyToTheirRankCount) {
  const JobSpec job = parse_job_text(
      sweep_job("ranks = [1, 2]\nglobal_batch = [6]\nbatch_split = [\"even\", [2, 1]]\n"), kFile);
  EXPECT_EQ(job.sweep.batch_split, (std::vector<std::string>{"even", "2,1"}));
  EXPECT_EQ(job.sweep.split_weights, (std::vector<std::vector<double>>{{}, {2.0, 1.0}}));
}

// ---- files ---------------------------------------------------------------------------------

TEST(JobFiles, EveryShippedJobParses) {
  int count = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SCALETUNE_SOURCE_DIR) + "/jobs")) {
    if (entry.path().extension() != ".toml") continue;
    SCOPED_TRACE(entry.path().string());
    const JobSpec job = parse_job_file(entry.path().string());
    EXPECT_EQ(job.job.name, entry.path().stem().string());
    EXPECT_EQ(job.path, entry.path().string());
    ++count;
  }
  EXPECT_GE(count, 4);
}

TEST(JobFiles, MissingFileIsAnErrorNamingIt) {
  const std::string path = "no/such/job.toml";
  try {
    parse_job_file(path);
    ADD_FAILURE() << "no error";
  } catch (const JobError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.line(), 0);
    EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << e.what();
    EXPECT_TRUE(contains(e.message(), "not found")) << e.what();
  }
}

TEST(JobFiles, DirectoryIsAnErrorNamingIt) {
  const std::string path = std::string(SCALETUNE_SOURCE_DIR) + "/jobs";
  try {
    parse_job_file(path);
    ADD_FAILURE() << "no error";
  } catch (const JobError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_TRUE(contains(e.message(), "is a directory")) << e.what();
  }
}

/// A scratch folder of this test process, removed with its contents at destruction.
class ScratchDir {
 public:
  ScratchDir()
      : m_path(std::filesystem::temp_directory_path() /
               ("scaletune-test-job-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(m_path);
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

JobError file_error_of(const std::string& path) {
  try {
    parse_job_file(path);
  } catch (const JobError& e) {
    return e;
  }
  ADD_FAILURE() << "no JobError for " << path;
  return JobError("", -1, -1, "", "");
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

/// kValidJob followed by one comment line, `bytes` long in all.
std::string padded_job(std::size_t bytes) {
  return kValidJob + "#" + std::string(bytes - kValidJob.size() - 2, 'x') + "\n";
}

TEST(JobFiles, DeviceIsRefusedBeforeReading) {
  // Reading /dev/zero never ends: it must be refused by its type.
  const JobError e = file_error_of("/dev/zero");
  EXPECT_EQ(e.file(), "/dev/zero");
  EXPECT_EQ(e.line(), 0);
  EXPECT_TRUE(contains(e.message(), "is not a regular file")) << e.what();
}

TEST(JobFiles, FifoIsRefusedBeforeReading) {
  // Opening a FIFO without a writer blocks forever: it must be refused by its type.
  const ScratchDir dir;
  const std::string path = dir.file("job.fifo");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << path;
  const JobError e = file_error_of(path);
  EXPECT_EQ(e.file(), path);
  EXPECT_TRUE(contains(e.message(), "is not a regular file")) << e.what();
}

TEST(JobFiles, FileOverOneMebibyteIsRefused) {
  const ScratchDir dir;
  const std::string path = dir.file("big.toml");
  write_file(path, padded_job((1u << 20) + 1));
  ASSERT_EQ(std::filesystem::file_size(path), (1u << 20) + 1);
  const JobError e = file_error_of(path);
  EXPECT_EQ(e.file(), path);
  EXPECT_EQ(e.line(), 0);
  EXPECT_EQ(e.message(), "job file is larger than 1 MiB; is it a job file?");
}

TEST(JobFiles, FileOfExactlyOneMebibyteParses) {
  const ScratchDir dir;
  const std::string path = dir.file("padded.toml");
  write_file(path, padded_job(1u << 20));
  ASSERT_EQ(std::filesystem::file_size(path), 1u << 20);
  const JobSpec job = parse_job_file(path);
  EXPECT_EQ(job.job.name, "t");
  EXPECT_EQ(job.toml_text.size(), 1u << 20);
}

// ---- TOML syntax ---------------------------------------------------------------------------

TEST(JobSyntax, ReportsLineAndColumnWithoutKey) {
  const JobError e = error_of("[job]\nname = \"t\"\nbad = 1.5e\n");
  EXPECT_EQ(e.line(), 3);
  EXPECT_GT(e.column(), 0);
  EXPECT_EQ(e.key(), "");
  EXPECT_TRUE(contains(e.message(), "TOML syntax error")) << e.what();
}

TEST(JobSyntax, RepeatedKeyNamesTheKeyAtItsSecondDefinition) {
  const std::string text = edited("job", "name", "name = \"a\"\nname = \"b\"");
  const JobError e = error_of(text);
  EXPECT_EQ(e.key(), "name");
  EXPECT_EQ(e.line(), line_of(text, "name = \"b\""));
  EXPECT_TRUE(contains(e.message(), "defined twice")) << e.what();
}

// toml++ 3.3's own message would say '"iiterations" ' (it garbles quoted keys).
TEST(JobSyntax, RepeatedQuotedKeyIsNamedAsWrittenAtItsFirstCharacter) {
  const std::string text = edited("run", "iterations", "\"iterations\" = 3\n  \"iterations\" = 4");
  const JobError e = error_of(text);
  EXPECT_EQ(e.key(), "iterations");
  EXPECT_EQ(e.line(), line_of(text, "  \"iterations\" = 4"));
  EXPECT_EQ(e.column(), 3);
  EXPECT_TRUE(contains(e.message(), "defined twice")) << e.what();
}

TEST(JobSyntax, RepeatedTableNamesTheTable) {
  const std::string text = kValidJob + "[run]\nwarmup = 1\n";
  const JobError e = error_of(text);
  EXPECT_EQ(e.key(), "run");
  EXPECT_EQ(e.line(), static_cast<int>(lines_of(kValidJob).size()) + 1);
  EXPECT_TRUE(contains(e.message(), "defined twice")) << e.what();
}

// ---- tables --------------------------------------------------------------------------------

TEST(JobTables, UnknownTableGetsTheNearestName) {
  const std::string text = kValidJob + "[swep]\nranks = [1]\n";
  const JobError e = error_of(text);
  EXPECT_EQ(e.key(), "swep");
  EXPECT_EQ(e.line(), line_of(text, "[swep]"));
  EXPECT_EQ(e.message(), "unknown table [swep]; did you mean 'sweep'?");
}

TEST(JobTables, FarUnknownTableListsTheTables) {
  const JobError e = error_of(kValidJob + "[optimizer]\nlr = 0.1\n");
  EXPECT_EQ(e.key(), "optimizer");
  EXPECT_EQ(e.message(),
            "unknown table [optimizer]; tables allowed: job, workload, sweep, run, comm, devices, "
            "slurm, predict");
}

TEST(JobTables, KeyOutsideAnyTable) {
  const std::string text = "iterations = 3\n" + kValidJob;
  const JobError e = error_of(text);
  EXPECT_EQ(e.key(), "iterations");
  EXPECT_EQ(e.line(), 1);
  EXPECT_TRUE(contains(e.message(), "key outside any table")) << e.what();
}

TEST(JobTables, TableNameGivenAValue) {
  const std::string text = "job = 3\n" + kValidJob.substr(kValidJob.find("[workload]"));
  const JobError e = error_of(text);
  EXPECT_EQ(e.key(), "job");
  EXPECT_EQ(e.line(), 1);
  EXPECT_EQ(e.message(), "job: integer where a table is expected");
}

// ---- missing keys --------------------------------------------------------------------------

struct MissingKey {
  std::string table, key, message;
};

class JobMissingKey : public testing::TestWithParam<MissingKey> {};

TEST_P(JobMissingKey, IsAnErrorWithoutLine) {
  const MissingKey& c = GetParam();
  const JobError e = error_of(edited(c.table, c.key, ""));
  EXPECT_EQ(e.key(), c.key);
  EXPECT_EQ(e.line(), 0);
  EXPECT_EQ(e.column(), 0);
  EXPECT_TRUE(contains(e.message(), c.message)) << e.what();
}

INSTANTIATE_TEST_SUITE_P(
    Required, JobMissingKey,
    testing::Values(MissingKey{"job", "name", "job.name is required (a non-empty string)"},
                    MissingKey{"workload", "kind",
                               "workload.kind is required (one of resnet50, collectives, dlrm, "
                               "transformer)"},
                    MissingKey{"sweep", "ranks", "sweep.ranks is required"},
                    MissingKey{"sweep", "global_batch", "sweep.global_batch is required"}));

TEST(JobMissingTable, AbsentSweepMeansMissingRanks) {
  const std::string text = kValidJob.substr(0, kValidJob.find("[sweep]"));
  const JobError e = error_of(text);
  EXPECT_EQ(e.key(), "ranks");
  EXPECT_EQ(e.line(), 0);
}

// ---- one bad line: wrong types, out of range, unknown keys and words -----------------------

struct BadLine {
  std::string table;             ///< the table the line goes in
  std::string line;              ///< "key = value", replacing that key's line
  std::string key;               ///< the key the error must name
  std::string message;           ///< a part of the message
  std::string base = kValidJob;  ///< the job the line is edited into
};

void PrintTo(const BadLine& c, std::ostream* out) {
  *out << (c.base == kValidJob ? "resnet50 " : "collectives ") << "[" << c.table << "] " << c.line;
}

class JobBadLine : public testing::TestWithParam<BadLine> {};

TEST_P(JobBadLine, NamesLineKeyAndWhatWasExpected) {
  const BadLine& c = GetParam();
  const std::string key_text = c.line.substr(0, c.line.find(" ="));
  const std::string text = edited(c.table, key_text, c.line, c.base);
  const JobError e = error_of(text);
  EXPECT_EQ(e.key(), c.key) << e.what();
  EXPECT_EQ(e.line(), line_of(text, c.line)) << e.what();
  EXPECT_GE(e.column(), 1) << e.what();
  EXPECT_LE(e.column(), static_cast<int>(c.line.size())) << e.what();
  EXPECT_TRUE(contains(e.message(), c.message)) << e.what();
  EXPECT_EQ(e.file(), kFile);
}

INSTANTIATE_TEST_SUITE_P(
    WrongType, JobBadLine,
    testing::Values(
        BadLine{"job", "name = 5", "name", "name: integer where a string is expected"},
        BadLine{"job", "output = [\"a.h5\"]", "output", "output: list where a string is expected"},
        BadLine{"workload", "kind = 50", "kind", "kind: integer where a string is expected"},
        BadLine{"workload", "image_size = 32.0", "image_size",
                "image_size: float where an integer is expected"},
        BadLine{"workload", "width = \"1\"", "width", "width: string where a number is expected"},
        BadLine{"workload", "num_classes = true", "num_classes",
                "num_classes: boolean where an integer is expected"},
        BadLine{"workload", "sync_batch_norm = 1", "sync_batch_norm",
                "sync_batch_norm: integer where a boolean (true or false) is expected"},
        BadLine{"sweep", "ranks = [1.5]", "ranks", "ranks: float where an integer is expected"},
        BadLine{"sweep", "ranks = [[1]]", "ranks", "ranks: list where an integer is expected"},
        BadLine{"sweep", "global_batch = 8", "global_batch",
                "global_batch: integer where a list of integers is expected"},
        BadLine{"sweep", "batch_split = \"even\"", "batch_split",
                "batch_split: string where a list of \"even\" or weight lists is expected"},
        BadLine{"sweep", "batch_split = [true]", "batch_split",
                "batch_split: boolean where \"even\" or a list of weights is expected"},
        BadLine{"sweep", "batch_split = [[1, \"a\"]]", "batch_split",
                "batch_split: string where a number is expected"},
        BadLine{"sweep", "precision = \"fp32\"", "precision",
                "precision: string where a list of strings is expected"},
        BadLine{"sweep", "precision = [32]", "precision",
                "precision: integer where a string is expected"},
        BadLine{"run", "warmup = 1.0", "warmup", "warmup: float where an integer is expected"},
        BadLine{"run", "warmup = 1979-05-27", "warmup",
                "warmup: date where an integer is expected"},
        BadLine{"run", "iterations = \"20\"", "iterations",
                "iterations: string where an integer is expected"},
        BadLine{"run", "timeout_s = \"60\"", "timeout_s",
                "timeout_s: string where a number is expected"},
        BadLine{"run", "seed = 1.5", "seed", "seed: float where an integer is expected"},
        BadLine{"comm", "backend = 1", "backend", "backend: integer where a string is expected"},
        BadLine{"comm", "bucket_mib = \"25\"", "bucket_mib",
                "bucket_mib: string where a number is expected"}));

INSTANTIATE_TEST_SUITE_P(
    OutOfRange, JobBadLine,
    testing::Values(
        BadLine{"job", "name = \"\"", "name", "name must not be an empty string"},
        BadLine{"workload", "image_size = 31", "image_size",
                "image_size must be >= 32 and <= 8192"},
        BadLine{"workload", "image_size = 8193", "image_size",
                "image_size must be >= 32 and <= 8192"},
        BadLine{"workload", "image_size = 3000000000", "image_size",
                "image_size must be >= 32 and <= 8192"},
        BadLine{"workload", "width = 0", "width", "width must be > 0 and <= 4"},
        BadLine{"workload", "width = 4.5", "width", "width must be > 0 and <= 4"},
        BadLine{"workload", "width = -0.5", "width", "width must be > 0 and <= 4"},
        BadLine{"workload", "width = nan", "width", "width must be > 0 and <= 4"},
        BadLine{"workload", "width = inf", "width", "width must be > 0 and <= 4"},
        BadLine{"workload", "num_classes = 1", "num_classes",
                "num_classes must be >= 2 and <= 10000000"},
        BadLine{"workload", "num_classes = 10000001", "num_classes",
                "num_classes must be >= 2 and <= 10000000"},
        BadLine{"sweep", "ranks = [1, -2]", "ranks", "ranks must be >= 1 and <= 1048576"},
        BadLine{"sweep", "ranks = [1, 1048577]", "ranks", "ranks must be >= 1 and <= 1048576"},
        BadLine{"sweep", "global_batch = [8, 0]", "global_batch",
                "global_batch must be >= 1 and <= 1073741824"},
        BadLine{"sweep", "global_batch = [8, 1073741826]", "global_batch",
                "global_batch must be >= 1 and <= 1073741824"},
        BadLine{"sweep", "batch_split = [[1, 0]]", "batch_split",
                "batch_split must be > 0 and finite"},
        BadLine{"sweep", "batch_split = [[1, nan]]", "batch_split",
                "batch_split must be > 0 and finite"},
        BadLine{"sweep", "batch_split = [[1, inf]]", "batch_split",
                "batch_split must be > 0 and finite"},
        BadLine{"sweep", "batch_split = [\"even\", [1e308, 1e308]]", "batch_split",
                "batch_split weights [1e+308,1e+308] sum to infinity; weights must be finite, > 0 "
                "and have a finite sum"},
        BadLine{"run", "warmup = -1", "warmup", "warmup must be >= 0 and <= 1000000"},
        BadLine{"run", "warmup = 1000001", "warmup", "warmup must be >= 0 and <= 1000000"},
        BadLine{"run", "iterations = 0", "iterations", "iterations must be >= 1 and <= 1000000"},
        BadLine{"run", "iterations = 1000001", "iterations",
                "iterations must be >= 1 and <= 1000000"},
        BadLine{"run", "timeout_s = 0", "timeout_s", "timeout_s must be > 0 and <= 1e+07"},
        BadLine{"run", "timeout_s = 10000001", "timeout_s", "timeout_s must be > 0 and <= 1e+07"},
        BadLine{"run", "timeout_s = inf", "timeout_s", "timeout_s must be > 0 and <= 1e+07"},
        BadLine{"run", "timeout_s = nan", "timeout_s", "timeout_s must be > 0 and <= 1e+07"},
        BadLine{"run", "timeout_s = 9223372036854775807", "timeout_s",
                "timeout_s must be > 0 and <= 1e+07"},
        BadLine{"workload", "width = 9223372036854775807", "width", "width must be > 0 and <= 4"},
        BadLine{"run", "seed = -1", "seed", "seed must be >= 0 and <= 9223372036854775807"}));

// bucket_mib: 1e15 made a run hang and 1e-6 failed every configuration at run time.
constexpr const char* kBucketRange =
    "bucket_mib must be >= 1/1024 and <= 1048576 (MiB: from 1 KiB to 1 TiB)";

INSTANTIATE_TEST_SUITE_P(
    BucketSize, JobBadLine,
    testing::Values(BadLine{"comm", "bucket_mib = 0", "bucket_mib", kBucketRange},
                    BadLine{"comm", "bucket_mib = 1e-6", "bucket_mib", kBucketRange},
                    BadLine{"comm", "bucket_mib = 0.0009765", "bucket_mib", kBucketRange},
                    BadLine{"comm", "bucket_mib = 1048576.5", "bucket_mib", kBucketRange},
                    BadLine{"comm", "bucket_mib = 1e15", "bucket_mib", kBucketRange},
                    BadLine{"comm", "bucket_mib = 9223372036854775807", "bucket_mib", kBucketRange},
                    BadLine{"comm", "bucket_mib = -25", "bucket_mib", kBucketRange},
                    BadLine{"comm", "bucket_mib = nan", "bucket_mib", kBucketRange},
                    BadLine{"comm", "bucket_mib = inf", "bucket_mib", kBucketRange},
                    BadLine{"comm", "bucket_mib = -inf", "bucket_mib", kBucketRange}));

// The name becomes a file name (results/<name>.h5) and appears in reports.
constexpr const char* kNameRule =
    "name must be 1 to 128 characters of A-Z a-z 0-9 . _ - and must not start with '.' or '-'";

INSTANTIATE_TEST_SUITE_P(
    JobName, JobBadLine,
    testing::Values(BadLine{"job", "name = \"../../evil\"", "name", kNameRule},
                    BadLine{"job", "name = \"a/b\"", "name", kNameRule},
                    BadLine{"job", "name = \"a\\nb\"", "name", kNameRule},
                    BadLine{"job", "name = \"a\\u0000b\"", "name", kNameRule},
                    BadLine{"job", "name = \"a b\"", "name", kNameRule},
                    BadLine{"job", "name = \"r\u00e9sum\u00e9\"", "name", kNameRule},
                    BadLine{"job", "name = \".hidden\"", "name", kNameRule},
                    BadLine{"job", "name = \"-rf\"", "name", kNameRule},
                    BadLine{"job", "name = \"" + std::string(129, 'a') + "\"", "name", kNameRule},
                    BadLine{"job", "name = \"" + std::string(300, 'a') + "\"", "name", kNameRule}));

constexpr const char* kOutputSuffix = "output must be the path of a file ending in \".h5\"";
constexpr const char* kOutputControl =
    "output must not contain control characters such as NUL or newline";

INSTANTIATE_TEST_SUITE_P(
    JobOutput, JobBadLine,
    testing::Values(BadLine{"job", "output = \"\"", "output", "output must not be an empty string"},
                    BadLine{"job", "output = \"results/t.txt\"", "output", kOutputSuffix},
                    BadLine{"job", "output = \"results/t.h5/\"", "output", kOutputSuffix},
                    BadLine{"job", "output = \"results/\"", "output", kOutputSuffix},
                    BadLine{"job", "output = \"results/.h5\"", "output", kOutputSuffix},
                    BadLine{"job", "output = \"t.h5x\"", "output", kOutputSuffix},
                    BadLine{"job", "output = \"a\\nb.h5\"", "output", kOutputControl},
                    BadLine{"job", "output = \"a\\u0000b.h5\"", "output", kOutputControl}));

INSTANTIATE_TEST_SUITE_P(
    UnknownKey, JobBadLine,
    testing::Values(
        BadLine{"job", "nmae = \"x\"", "nmae", "unknown key in [job]; did you mean 'name'?"},
        BadLine{"workload", "image_sise = 32", "image_sise",
                "unknown key in [workload]; did you mean 'image_size'?"},
        BadLine{"workload", "embedding_dim = 64", "embedding_dim",
                "unknown key in [workload]; valid keys: kind, image_size, width, num_classes, "
                "sync_batch_norm"},
        BadLine{"sweep", "rank = [1]", "rank", "unknown key in [sweep]; did you mean 'ranks'?"},
        BadLine{"run", "iteration = 3", "iteration",
                "unknown key in [run]; did you mean 'iterations'?"},
        BadLine{"comm", "backnd = \"mpi\"", "backnd",
                "unknown key in [comm]; did you mean 'backend'?"},
        BadLine{"comm", "algorithm = \"ring\"", "algorithm",
                "unknown key in [comm]; valid keys: backend, bucket_mib, overlap"}));

INSTANTIATE_TEST_SUITE_P(
    UnknownWord, JobBadLine,
    testing::Values(
        BadLine{"workload", "kind = \"resnet-50\"", "kind",
                "unknown workload kind 'resnet-50'; did you mean 'resnet50'?"},
        BadLine{"workload", "kind = \"bert-large\"", "kind",
                "unknown workload kind 'bert-large'; known kinds: resnet50, collectives, dlrm, "
                "transformer"},
        BadLine{"comm", "backend = \"mpii\"", "backend",
                "unknown backend 'mpii'; expected one of mpi, nccl, auto; did you mean 'mpi'?"},
        BadLine{"comm", "backend = \"ucx-verbs\"", "backend",
                "unknown backend 'ucx-verbs'; expected one of mpi, nccl, auto"},
        BadLine{"sweep", "precision = [\"fp33\"]", "precision",
                "unknown precision 'fp33'; expected one of fp32, fp16, bf16; did you mean "
                "'fp32'?"},
        BadLine{"sweep", "precision = [\"tf32\"]", "precision",
                "unknown precision 'tf32'; expected one of fp32, fp16, bf16; did you mean "
                "'fp32'?"},
        BadLine{"sweep", "batch_split = [\"proportional\"]", "batch_split",
                "batch_split 'proportional' splits the batch by a profile of each rank taken at "
                "run time, which only workload.kind = \"transformer\" does; use \"even\" or an "
                "explicit weight list"},
        BadLine{"sweep", "batch_split = [\"auto\"]", "batch_split",
                "batch_split 'auto' splits the batch by a profile of each rank taken at run time, "
                "which only workload.kind = \"transformer\" does"},
        BadLine{"sweep", "batch_split = [\"evn\"]", "batch_split",
                "unknown batch_split 'evn'; use \"even\" or an explicit weight list; did you mean "
                "'even'?"}));

INSTANTIATE_TEST_SUITE_P(
    EmptyOrRepeated, JobBadLine,
    testing::Values(
        BadLine{"sweep", "ranks = []", "ranks", "a sweep list must not be empty"},
        BadLine{"sweep", "global_batch = []", "global_batch", "a sweep list must not be empty"},
        BadLine{"sweep", "batch_split = []", "batch_split", "a sweep list must not be empty"},
        BadLine{"sweep", "precision = []", "precision", "a sweep list must not be empty"},
        BadLine{"sweep", "batch_split = [[]]", "batch_split",
                "a batch_split weight list must not be empty"},
        BadLine{"sweep", "ranks = [1, 2, 1]", "ranks",
                "ranks lists 1 twice; every sweep value must be distinct"},
        BadLine{"sweep", "global_batch = [8, 8]", "global_batch", "global_batch lists 8 twice"},
        BadLine{"sweep", "batch_split = [\"even\", \"even\"]", "batch_split",
                "batch_split lists even twice"},
        BadLine{"sweep", "batch_split = [[1, 1], [1.0, 1.0]]", "batch_split",
                "batch_split lists 1,1 twice"},
        BadLine{"sweep", "precision = [\"fp32\", \"fp32\"]", "precision",
                "precision lists fp32 twice"}));

INSTANTIATE_TEST_SUITE_P(
    BatchSplit, JobBadLine,
    testing::Values(
        // ranks = [1, 2] in the valid job; global_batch = [8].
        BadLine{"sweep", "global_batch = [8, 9]", "global_batch",
                "9 samples cannot split evenly over 2 ranks"},
        BadLine{"sweep", "batch_split = [\"even\", [1, 1, 1]]", "batch_split",
                "batch_split weight list [1,1,1] has 3 weights but ranks lists 1, 2; a weight "
                "list applies to the ranks value equal to its length"}));

// ---- positions inside lists ----------------------------------------------------------------

TEST(JobPositions, RepeatedValueIsReportedAtItsSecondOccurrence) {
  const std::string text = edited("sweep", "ranks", "ranks = [1, 2, 1]");
  const JobError e = error_of(text);
  EXPECT_EQ(e.column(), column_of_last(text, "1]"));
}

TEST(JobPositions, UnsplittableBatchIsReportedAtThatBatch) {
  const std::string text = edited("sweep", "global_batch", "global_batch = [8, 9]");
  const JobError e = error_of(text);
  EXPECT_EQ(e.line(), line_of(text, "global_batch = [8, 9]"));
  EXPECT_EQ(e.column(), column_of_last(text, "9]"));
}

TEST(JobPositions, RankCountWithoutAnyApplicableSplit) {
  // Only a two-weight list: it applies to 2 ranks, so 1 rank has no batch split at all.
  const std::string text = edited("sweep", "batch_split", "batch_split = [[1, 1]]");
  const JobError e = error_of(text);
  EXPECT_EQ(e.key(), "ranks");
  EXPECT_EQ(e.line(), line_of(text, "ranks = [1, 2]"));
  EXPECT_EQ(e.column(), column_of_last(text, "1, 2]"));
  EXPECT_TRUE(contains(e.message(), "no batch_split entry applies to 1 ranks")) << e.what();
}

TEST(JobPositions, WeightedSplitNeedsOneSamplePerRank) {
  const std::string text =
      sweep_job("ranks = [4]\nglobal_batch = [3]\nbatch_split = [[1, 1, 1, 1]]\n");
  const JobError e = error_of(text);
  EXPECT_EQ(e.key(), "global_batch");
  EXPECT_EQ(e.line(), 7);
  EXPECT_TRUE(contains(e.message(), "3 samples cannot give each of 4 ranks at least one"))
      << e.what();
}

TEST(JobPositions, EvenEntryIsCheckedBesideAWeightList) {
  const std::string text =
      sweep_job("ranks = [2]\nglobal_batch = [7]\nbatch_split = [\"even\", [1, 1]]\n");
  const JobError e = error_of(text);
  EXPECT_EQ(e.key(), "global_batch");
  EXPECT_EQ(e.line(), 7);
  EXPECT_TRUE(contains(e.message(), "7 samples cannot split evenly over 2 ranks")) << e.what();
}

// ---- kind "collectives" --------------------------------------------------------------------

/// A collectives job with the given [workload] option lines and ranks = [2]; the first option
/// line is line 5.
/// The job-file names of the options' ops, in order.
std::vector<std::string_view> op_texts(const scaletune::job::CollectivesOptions& options) {
  std::vector<std::string_view> texts;
  for (const scaletune::job::CollectiveOp op : options.ops)
    texts.push_back(scaletune::job::collective_op_text(op));
  return texts;
}

std::string collectives_job(const std::string& option_lines) {
  return "[job]\nname = \"c\"\n[workload]\nkind = \"collectives\"\n" + option_lines +
         "[sweep]\nranks = [2]\n";
}

TEST(JobCollectives, AppliesTheDocumentedDefaults) {
  const std::string text = collectives_job("");
  const JobSpec job = parse_job_text(text, kFile);
  const scaletune::job::CollectivesOptions& options = job.workload.collectives;
  EXPECT_EQ(job.workload.kind, "collectives");
  // job.hpp: every op, in nccl-tests spelling; 8 B to 64 MiB, doubling; fp32, sum, in place.
  EXPECT_EQ(op_texts(options),
            (std::vector<std::string_view>{"all_reduce", "reduce_scatter", "all_gather",
                                           "all_gatherv", "alltoall", "alltoallv", "broadcast"}));
  EXPECT_EQ(options.min_bytes, 8);
  EXPECT_EQ(options.max_bytes, 64 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(options.step_factor, 2.0);
  EXPECT_EQ(options.dtype, DataType::fp32);
  EXPECT_EQ(options.redop, scaletune::job::ReductionOp::sum);
  EXPECT_TRUE(options.in_place);
  // Only ranks is swept; global_batch is not required.
  EXPECT_EQ(job.sweep.ranks, std::vector<int>{2});
  EXPECT_TRUE(job.sweep.global_batch.empty());
  EXPECT_TRUE(job.sweep.batch_split.empty());
  EXPECT_TRUE(job.sweep.split_weights.empty());
  EXPECT_TRUE(job.sweep.precision.empty());
  EXPECT_EQ(job.comm.backend, CommBackend::auto_select);
}

TEST(JobCollectives, ReadsEveryKey) {
  const JobSpec job = parse_job_text(
      collectives_job("ops = [\"broadcast\", \"alltoallv\", \"all_reduce\"]\nmin_bytes = 1\n"
                      "max_bytes = 1099511627776\nstep_factor = 1.5\ndtype = \"bf16\"\n"
                      "redop = \"avg\"\nin_place = false\n"),
      kFile);
  const scaletune::job::CollectivesOptions& options = job.workload.collectives;
  EXPECT_EQ(op_texts(options),
            (std::vector<std::string_view>{"broadcast", "alltoallv", "all_reduce"}));
  EXPECT_EQ(options.min_bytes, 1);
  EXPECT_EQ(options.max_bytes, std::int64_t{1} << 40);
  EXPECT_DOUBLE_EQ(options.step_factor, 1.5);
  EXPECT_EQ(options.dtype, DataType::bf16);
  EXPECT_EQ(options.redop, scaletune::job::ReductionOp::avg);
  EXPECT_FALSE(options.in_place);
}

TEST(JobCollectives, AcceptsEveryDtypeAndRedop) {
  for (const std::string dtype : {"fp32", "fp64", "fp16", "bf16", "int32", "int64"}) {
    SCOPED_TRACE(dtype);
    EXPECT_EQ(data_type_text(parse_job_text(collectives_job("dtype = \"" + dtype + "\"\n"), kFile)
                                 .workload.collectives.dtype),
              dtype);
  }
  for (const std::string redop : {"sum", "avg"}) {
    EXPECT_EQ(scaletune::job::reduction_op_text(
                  parse_job_text(collectives_job("redop = \"" + redop + "\"\n"), kFile)
                      .workload.collectives.redop),
              redop);
  }
}

TEST(JobCollectives, AcceptsTheEdgesOfEveryRange) {
  const auto options = [](const std::string& lines) {
    return parse_job_text(collectives_job(lines), kFile).workload.collectives;
  };
  // One size: min_bytes = max_bytes.
  EXPECT_EQ(options("min_bytes = 1\nmax_bytes = 1\n").max_bytes, 1);
  EXPECT_EQ(options("min_bytes = 1099511627776\nmax_bytes = 1099511627776\n").min_bytes,
            std::int64_t{1} << 40);
  EXPECT_DOUBLE_EQ(options("step_factor = 1024\n").step_factor, 1024.0);
  // The smallest double above 1 is in (1, 1024]; over 8..16 it steps one byte at a time.
  EXPECT_DOUBLE_EQ(options("max_bytes = 16\nstep_factor = 1.0000000000000002\n").step_factor,
                   1.0000000000000002);
  // A default min_bytes (8) below a written max_bytes, and the reverse.
  EXPECT_EQ(options("max_bytes = 8\n").max_bytes, 8);
  EXPECT_EQ(options("min_bytes = 67108864\n").min_bytes, 64 * 1024 * 1024);
}

TEST(JobCollectives, MaxBelowMinIsReportedAtMaxNamingBoth) {
  const std::string text = collectives_job("min_bytes = 4096\nmax_bytes = 1024\n");
  const JobError e = error_of(text);
  EXPECT_EQ(e.key(), "max_bytes");
  EXPECT_EQ(e.line(), 6);
  EXPECT_EQ(e.column(), column_of_last(text, "1024"));
  EXPECT_EQ(e.message(),
            "max_bytes = 1024 is below min_bytes = 4096; max_bytes must be >= min_bytes");
}

TEST(JobCollectives, MinAboveTheDefaultMaxIsReportedAtMin) {
  // The default max_bytes is 64 MiB = 67108864 bytes.
  const JobError e = error_of(collectives_job("min_bytes = 67108865\n"));
  EXPECT_EQ(e.key(), "min_bytes");
  EXPECT_EQ(e.line(), 5);
  EXPECT_EQ(e.message(),
            "min_bytes = 67108865 is above the default max_bytes = 67108864; set max_bytes >= "
            "min_bytes or lower min_bytes");
}

TEST(JobCollectives, AFactorGivingTooManySizesIsReportedAtIt) {
  // 1.0001 adds one byte per step below 10,000 B: 1..1024 is 1024 sizes, 1..1025 one too many.
  EXPECT_NO_THROW(parse_job_text(
      collectives_job("min_bytes = 1\nmax_bytes = 1024\nstep_factor = 1.0001\n"), kFile));
  const JobError e =
      error_of(collectives_job("min_bytes = 1\nmax_bytes = 1025\nstep_factor = 1.0001\n"));
  EXPECT_EQ(e.key(), "step_factor");
  EXPECT_EQ(e.line(), 7);
  EXPECT_EQ(e.message(),
            "step_factor = 1.0001 gives more than 1024 sizes per op from min_bytes = 1 to "
            "max_bytes = 1025; use a larger step_factor (2 doubles each size) or a narrower range");
}

TEST(JobCollectives, RepeatedOpIsReportedAtItsSecondOccurrence) {
  const std::string line = "ops = [\"broadcast\", \"all_reduce\", \"broadcast\"]";
  const std::string text = edited("workload", "ops", line, kValidCollectivesJob);
  const JobError e = error_of(text);
  EXPECT_EQ(e.key(), "ops");
  EXPECT_EQ(e.line(), line_of(text, line));
  EXPECT_EQ(e.column(), column_of_last(text, "\"broadcast\"]"));
  EXPECT_EQ(e.message(), "ops lists 'broadcast' twice; list each value once");
}

TEST(JobCollectives, UnknownOpIsReportedAtThatOp) {
  const std::string line = "ops = [\"all_reduce\", \"allgather\"]";
  const std::string text = edited("workload", "ops", line, kValidCollectivesJob);
  const JobError e = error_of(text);
  EXPECT_EQ(e.column(), column_of_last(text, "\"allgather\""));
}

TEST(JobCollectives, SweepNeedsRanksOnly) {
  const JobError e = error_of(edited("sweep", "ranks", "", kValidCollectivesJob));
  EXPECT_EQ(e.key(), "ranks");
  EXPECT_EQ(e.line(), 0);
  EXPECT_TRUE(contains(e.message(), "sweep.ranks is required")) << e.what();
}

TEST(JobCollectives, EveryBackendIsAccepted) {
  for (const std::string backend : {"nccl", "mpi", "auto"}) {
    SCOPED_TRACE(backend);
    const std::string line = "backend = \"" + backend + "\"";
    EXPECT_EQ(scaletune::job::comm_backend_text(
                  parse_job_text(edited("comm", "backend", line, kValidCollectivesJob), kFile)
                      .comm.backend),
              backend);
  }
}

constexpr const char* kOpList =
    "all_reduce, reduce_scatter, all_gather, all_gatherv, alltoall, alltoallv, broadcast";
constexpr const char* kSizeRange = "must be >= 1 and <= 1099511627776";
constexpr const char* kFactorRange =
    "step_factor must be > 1 and <= 1024 (each size is the previous one times step_factor)";

/// A line of the valid collectives job that must fail.
BadLine collectives(const std::string& table, const std::string& line, const std::string& key,
                    const std::string& message) {
  return BadLine{table, line, key, message, kValidCollectivesJob};
}

INSTANTIATE_TEST_SUITE_P(
    CollectivesWrongType, JobBadLine,
    testing::Values(
        collectives("workload", "ops = \"all_reduce\"", "ops",
                    "ops: string where a list of strings is expected"),
        collectives("workload", "ops = [1]", "ops", "ops: integer where a string is expected"),
        collectives("workload", "ops = [[\"all_reduce\"]]", "ops",
                    "ops: list where a string is expected"),
        collectives("workload", "min_bytes = 8.0", "min_bytes",
                    "min_bytes: float where an integer is expected"),
        collectives("workload", "max_bytes = \"1G\"", "max_bytes",
                    "max_bytes: string where an integer is expected"),
        collectives("workload", "step_factor = \"2\"", "step_factor",
                    "step_factor: string where a number is expected"),
        collectives("workload", "dtype = 32", "dtype", "dtype: integer where a string is expected"),
        collectives("workload", "redop = [\"sum\"]", "redop",
                    "redop: list where a string is expected"),
        collectives("workload", "in_place = \"yes\"", "in_place",
                    "in_place: string where a boolean (true or false) is expected"),
        collectives("workload", "in_place = 1", "in_place",
                    "in_place: integer where a boolean (true or false) is expected")));

INSTANTIATE_TEST_SUITE_P(
    CollectivesOutOfRange, JobBadLine,
    testing::Values(
        collectives("workload", "ops = []", "ops",
                    std::string("ops must not be an empty list; expected one or more of ") +
                        kOpList),
        collectives("workload", "ops = [\"\"]", "ops", "ops must not be an empty string"),
        collectives("workload", "min_bytes = 0", "min_bytes",
                    std::string("min_bytes ") + kSizeRange),
        collectives("workload", "min_bytes = -8", "min_bytes",
                    std::string("min_bytes ") + kSizeRange),
        collectives("workload", "min_bytes = 1099511627777", "min_bytes",
                    std::string("min_bytes ") + kSizeRange),
        collectives("workload", "max_bytes = 0", "max_bytes",
                    std::string("max_bytes ") + kSizeRange),
        collectives("workload", "max_bytes = 1099511627777", "max_bytes",
                    std::string("max_bytes ") + kSizeRange),
        collectives("workload", "max_bytes = 4", "max_bytes",
                    "max_bytes = 4 is below min_bytes = 8; max_bytes must be >= min_bytes"),
        collectives("workload", "step_factor = 1", "step_factor", kFactorRange),
        collectives("workload", "step_factor = 1.0", "step_factor", kFactorRange),
        collectives("workload", "step_factor = 0.5", "step_factor", kFactorRange),
        collectives("workload", "step_factor = -2", "step_factor", kFactorRange),
        collectives("workload", "step_factor = 1024.5", "step_factor", kFactorRange),
        collectives("workload", "step_factor = nan", "step_factor", kFactorRange),
        collectives("workload", "step_factor = inf", "step_factor", kFactorRange)));

INSTANTIATE_TEST_SUITE_P(
    CollectivesUnknownWord, JobBadLine,
    testing::Values(
        collectives("workload", "ops = [\"allreduce\"]", "ops",
                    std::string("unknown value 'allreduce' in ops; expected one of ") + kOpList +
                        "; did you mean 'all_reduce'?"),
        collectives("workload", "ops = [\"all_reduce\", \"sendrecv\"]", "ops",
                    "unknown value 'sendrecv' in ops"),
        collectives("workload", "dtype = \"float\"", "dtype",
                    "unknown dtype 'float'; expected one of fp32, fp64, fp16, bf16, int32, int64"),
        collectives("workload", "dtype = \"fp23\"", "dtype",
                    "unknown dtype 'fp23'; expected one of fp32, fp64, fp16, bf16, int32, int64; "
                    "did you mean 'fp32'?"),
        collectives("workload", "redop = \"prod\"", "redop",
                    "unknown redop 'prod'; expected one of sum, avg"),
        collectives("workload", "redop = \"sun\"", "redop", "did you mean 'sum'?"),
        collectives("workload", "stepfactor = 2", "stepfactor",
                    "unknown key in [workload]; did you mean 'step_factor'?"),
        collectives("workload", "image_size = 64", "image_size",
                    "unknown key in [workload]; valid keys: kind, ops, min_bytes, max_bytes, "
                    "step_factor, dtype, redop, in_place")));

constexpr const char* kRanksOnly =
    "is not used by workload.kind = \"collectives\": the benchmark sweeps ranks only; remove it";

INSTANTIATE_TEST_SUITE_P(
    CollectivesSweep, JobBadLine,
    testing::Values(
        collectives("sweep", "global_batch = [8]", "global_batch",
                    std::string("global_batch ") + kRanksOnly),
        collectives("sweep", "batch_split = [\"even\"]", "batch_split",
                    std::string("batch_split ") + kRanksOnly),
        collectives("sweep", "precision = [\"fp32\"]", "precision",
                    std::string("precision ") + kRanksOnly),
        collectives("sweep", "rank = [2]", "rank", "unknown key in [sweep]; did you mean 'ranks'?"),
        collectives("sweep", "ranks = []", "ranks", "a sweep list must not be empty"),
        collectives("sweep", "ranks = [0]", "ranks", "ranks must be >= 1 and <= 1048576"),
        collectives("sweep", "ranks = [2, 2]", "ranks", "ranks lists 2 twice")));

}  // namespace
