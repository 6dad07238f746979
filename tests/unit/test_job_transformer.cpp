// Kind "transformer" job files: [workload] options (GPT-2 small defaults, ranges, hidden %
// heads), [sweep] state_sharding, batch_split "proportional" / "auto" (profiled at run time),
// the expansion (ids, Cartesian order, empty per-rank batches) and the plan text. Every error is
// checked for its file, line, key and what was expected.

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
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
using scaletune::job::DataType;
using scaletune::job::expand_sweep;
using scaletune::job::JobError;
using scaletune::job::JobSpec;
using scaletune::job::parse_job_text;
using scaletune::job::state_sharding_text;
using scaletune::job::TransformerOptions;
using scaletune::testing_support::contains;
using scaletune::testing_support::job_error_of;
using scaletune::testing_support::line_of;
using scaletune::testing_support::lines_of;
using scaletune::testing_support::replaced_line;

constexpr const char* kFile = "transformer.toml";

/// A valid transformer job setting every [workload] key to a value other than its default.
const std::string kJob = R"([job]
name = "t"
[workload]
kind = "transformer"
layers = 2
hidden = 64
heads = 4
seq_len = 32
vocab = 100
ffn_mult = 2
dropout = 0.25
learning_rate = 0.001
[sweep]
ranks = [1, 2]
global_batch = [8]
)";

/// The smallest transformer job: every [workload] option and [sweep] key but the required ones
/// absent.
const std::string kMinimalJob = R"([job]
name = "t"
[workload]
kind = "transformer"
[sweep]
ranks = [1]
global_batch = [4]
)";

/// `text` (default kJob) with its line `old_line` replaced by `new_line` (removed when empty).
std::string replaced(const std::string& old_line, const std::string& new_line,
                     const std::string& text = kJob) {
  return replaced_line(text, old_line, new_line);
}

JobError error_of(const std::string& text) {
  return job_error_of(text, kFile);
}

/// Checks that `text` fails at the line of `needle` with `key` and a message containing `part`,
/// and that what() starts with "FILE:LINE:" and names the key.
void expect_error(const std::string& text, const std::string& needle, const std::string& key,
                  const std::string& part) {
  SCOPED_TRACE(needle + " / " + part);
  const JobError e = error_of(text);
  const int line = line_of(text, needle);
  EXPECT_EQ(e.line(), line) << e.what();
  EXPECT_EQ(e.key(), key) << e.what();
  EXPECT_TRUE(contains(e.message(), part)) << e.what();
  EXPECT_EQ(std::string(e.what()).rfind(std::string(kFile) + ":" + std::to_string(line) + ":", 0),
            0u)
      << e.what();
  EXPECT_TRUE(contains(e.what(), "key '" + key + "'")) << e.what();
}

/// A resnet50 job on 1 rank with batch 4 and `sweep_line` added at the end of [sweep].
std::string resnet_job(const std::string& sweep_line) {
  return "[job]\nname = \"r\"\n[workload]\nkind = \"resnet50\"\n[sweep]\nranks = [1]\n"
         "global_batch = [4]\n" +
         sweep_line + "\n";
}

/// kJob with `line` added at the end of [sweep].
std::string with_sweep(const std::string& line, const std::string& text = kJob) {
  return text + line + "\n";
}

std::vector<std::string> ids_of(const std::vector<Config>& configs) {
  std::vector<std::string> ids;
  for (const Config& c : configs) ids.push_back(c.id);
  return ids;
}

// ---- [workload] ----------------------------------------------------------------------------

TEST(TransformerJob, AbsentKeysTakeGpt2SmallDefaults) {
  const JobSpec job = parse_job_text(kMinimalJob, kFile);
  const TransformerOptions& o = job.workload.transformer;
  // GPT-2 small (Radford et al. 2019, table 2; the released hparams.json): n_layer 12,
  // n_embd 768, n_head 12, n_ctx 1024, n_vocab 50257, MLP 4 x n_embd, dropout 0.1; Adam 6e-4.
  EXPECT_EQ(job.workload.kind, "transformer");
  EXPECT_EQ(o.layers, 12);
  EXPECT_EQ(o.hidden, 768);
  EXPECT_EQ(o.heads, 12);
  EXPECT_EQ(o.seq_len, 1024);
  EXPECT_EQ(o.vocab, 50257);
  EXPECT_EQ(o.ffn_mult, 4);
  EXPECT_DOUBLE_EQ(o.dropout, 0.1);
  EXPECT_DOUBLE_EQ(o.learning_rate, 6e-4);
  EXPECT_EQ(job.sweep.batch_split, std::vector<std::string>{"even"});
  EXPECT_EQ(job.sweep.precision, std::vector<DataType>{DataType::fp32});
  EXPECT_EQ(job.sweep.state_sharding, std::vector<scaletune::job::StateSharding>{{}});
  EXPECT_TRUE(job.sweep.sharding.empty());
}

TEST(TransformerJob, ReadsEveryKey) {
  const TransformerOptions o = parse_job_text(kJob, kFile).workload.transformer;
  EXPECT_EQ(o.layers, 2);
  EXPECT_EQ(o.hidden, 64);
  EXPECT_EQ(o.heads, 4);
  EXPECT_EQ(o.seq_len, 32);
  EXPECT_EQ(o.vocab, 100);
  EXPECT_EQ(o.ffn_mult, 2);
  EXPECT_DOUBLE_EQ(o.dropout, 0.25);
  EXPECT_DOUBLE_EQ(o.learning_rate, 0.001);
}

TEST(TransformerJob, AcceptsTheEdgesOfEveryRange) {
  std::string low = replaced("layers = 2", "layers = 1");
  low = replaced("hidden = 64", "hidden = 1", low);
  low = replaced("heads = 4", "heads = 1", low);
  low = replaced("seq_len = 32", "seq_len = 1", low);
  low = replaced("vocab = 100", "vocab = 2", low);
  low = replaced("ffn_mult = 2", "ffn_mult = 1", low);
  low = replaced("dropout = 0.25", "dropout = 0", low);
  low = replaced("learning_rate = 0.001", "learning_rate = 1e-30", low);
  const TransformerOptions lo = parse_job_text(low, kFile).workload.transformer;
  EXPECT_EQ(lo.layers, 1);
  EXPECT_EQ(lo.hidden, 1);
  EXPECT_EQ(lo.heads, 1);
  EXPECT_EQ(lo.seq_len, 1);
  EXPECT_EQ(lo.vocab, 2);
  EXPECT_EQ(lo.ffn_mult, 1);
  EXPECT_EQ(lo.dropout, 0.0);
  EXPECT_EQ(lo.learning_rate, 1e-30);

  std::string high = replaced("layers = 2", "layers = 4096");
  high = replaced("hidden = 64", "hidden = 1048576", high);  // 2^20 = 256 x 4096
  high = replaced("heads = 4", "heads = 4096", high);
  high = replaced("seq_len = 32", "seq_len = 1048576", high);
  high = replaced("vocab = 100", "vocab = 67108864", high);  // 2^26
  high = replaced("ffn_mult = 2", "ffn_mult = 64", high);
  high = replaced("dropout = 0.25", "dropout = 0.999999", high);
  high = replaced("learning_rate = 0.001", "learning_rate = 1000", high);
  const TransformerOptions hi = parse_job_text(high, kFile).workload.transformer;
  EXPECT_EQ(hi.layers, 4096);
  EXPECT_EQ(hi.hidden, 1 << 20);
  EXPECT_EQ(hi.heads, 4096);
  EXPECT_EQ(hi.seq_len, 1 << 20);
  EXPECT_EQ(hi.vocab, 1 << 26);
  EXPECT_EQ(hi.ffn_mult, 64);
  EXPECT_EQ(hi.dropout, 0.999999);
  EXPECT_EQ(hi.learning_rate, 1000.0);
}

/// One bad [workload] line: the line of kJob it replaces, the new line, and the expected part.
struct BadOption {
  std::string old_line, new_line, key, part;
};

TEST(TransformerJobErrors, RangesAndTypesNameFileLineKeyAndExpectation) {
  const std::vector<BadOption> cases = {
      {"layers = 2", "layers = 0", "layers", "layers must be >= 1 and <= 4096"},
      {"layers = 2", "layers = 4097", "layers", "layers must be >= 1 and <= 4096"},
      {"layers = 2", "layers = 2.0", "layers", "layers: float where an integer is expected"},
      {"hidden = 64", "hidden = 0", "hidden", "hidden must be >= 1 and <= 1048576"},
      {"hidden = 64", "hidden = 1048577", "hidden", "hidden must be >= 1 and <= 1048576"},
      {"hidden = 64", "hidden = \"64\"", "hidden", "hidden: string where an integer is expected"},
      {"heads = 4", "heads = 0", "heads", "heads must be >= 1 and <= 4096"},
      {"heads = 4", "heads = 4097", "heads", "heads must be >= 1 and <= 4096"},
      {"seq_len = 32", "seq_len = 0", "seq_len", "seq_len must be >= 1 and <= 1048576"},
      {"seq_len = 32", "seq_len = 1048577", "seq_len", "seq_len must be >= 1 and <= 1048576"},
      {"vocab = 100", "vocab = 1", "vocab", "vocab must be >= 2 and <= 67108864"},
      {"vocab = 100", "vocab = 67108865", "vocab", "vocab must be >= 2 and <= 67108864"},
      {"ffn_mult = 2", "ffn_mult = 0", "ffn_mult", "ffn_mult must be >= 1 and <= 64"},
      {"ffn_mult = 2", "ffn_mult = 65", "ffn_mult", "ffn_mult must be >= 1 and <= 64"},
      {"ffn_mult = 2", "ffn_mult = 1.5", "ffn_mult", "ffn_mult: float where an integer"},
      {"dropout = 0.25", "dropout = 1", "dropout", "dropout must be >= 0 and < 1"},
      {"dropout = 0.25", "dropout = -0.1", "dropout", "dropout must be >= 0 and < 1"},
      {"dropout = 0.25", "dropout = nan", "dropout", "dropout must be >= 0 and < 1"},
      {"dropout = 0.25", "dropout = true", "dropout", "dropout: boolean where a number"},
      {"learning_rate = 0.001", "learning_rate = 0", "learning_rate",
       "learning_rate must be > 0 and <= 1000"},
      {"learning_rate = 0.001", "learning_rate = 1000.5", "learning_rate",
       "learning_rate must be > 0 and <= 1000"},
      {"learning_rate = 0.001", "learning_rate = inf", "learning_rate",
       "learning_rate must be > 0 and <= 1000"},
      {"layers = 2", "layer = 2", "layer", "unknown key in [workload]; did you mean 'layers'?"},
      {"vocab = 100", "bag_size = \"fixed\"", "bag_size", "unknown key in [workload]"},
  };
  for (const BadOption& c : cases) {
    const std::string text = replaced(c.old_line, c.new_line);
    expect_error(text, c.new_line, c.key, c.part);
  }
}

TEST(TransformerJobErrors, HiddenMustBeAMultipleOfHeads) {
  expect_error(replaced("hidden = 64", "hidden = 66"), "hidden = 66", "hidden",
               "hidden 66 is not a multiple of heads 4");
  // hidden left at its default 768 = 2^8 x 3: 7 heads do not divide it; the error sits at heads.
  const std::string text = replaced("heads = 4", "heads = 7", replaced("hidden = 64", ""));
  expect_error(text, "heads = 7", "hidden",
               "hidden 768 (the default) is not a multiple of heads 7");
  // A divisor is fine: 768 / 256 = 3.
  EXPECT_EQ(parse_job_text(replaced("heads = 4", "heads = 256", replaced("hidden = 64", "")), kFile)
                .workload.transformer.heads,
            256);
}

// NCCL and 16-bit precisions run on CUDA devices: accepted where the launch may have them
// (devices.kind "auto", the default, or "cuda"), refused with devices.kind = "host".
TEST(TransformerJob, NcclAndSixteenBitPrecisionsAreForCudaDevices) {
  const std::string cuda_job =
      with_sweep("precision = [\"fp32\", \"bf16\", \"fp16\"]") + "[comm]\nbackend = \"nccl\"\n";
  for (const std::string devices : {"", "[devices]\nkind = \"cuda\"\n"}) {
    const JobSpec job = parse_job_text(cuda_job + devices, kFile);
    EXPECT_EQ(job.comm.backend, scaletune::job::CommBackend::nccl);
    EXPECT_EQ(job.sweep.precision,
              (std::vector<DataType>{DataType::fp32, DataType::bf16, DataType::fp16}));
  }
  const std::string host = "[devices]\nkind = \"host\"\n";
  expect_error(with_sweep("precision = [\"fp32\", \"bf16\"]") + host, "precision", "precision",
               "precision \"bf16\" of workload.kind = \"transformer\" needs CUDA devices");
  expect_error(kJob + "[comm]\nbackend = \"nccl\"\n" + host, "backend = \"nccl\"", "backend",
               "devices.kind = \"host\"");
}

// ---- [sweep] state_sharding ----------------------------------------------------------------

TEST(TransformerSweep, StateShardingTakesEveryDocumentedValueInOrder) {
  const std::vector<std::string> values = {"zero3:memory_proportional",
                                           "auto",
                                           "replicated",
                                           "zero1",
                                           "zero2",
                                           "zero3",
                                           "zero1:memory_proportional",
                                           "zero2:memory_proportional"};
  std::string list;
  for (const std::string& value : values) list += (list.empty() ? "\"" : ", \"") + value + "\"";
  const JobSpec job = parse_job_text(with_sweep("state_sharding = [" + list + "]"), kFile);
  std::vector<std::string> read;
  for (const auto& sharding : job.sweep.state_sharding)
    read.push_back(state_sharding_text(sharding));
  EXPECT_EQ(read, values);
  // The same spellings as the public constant, each once.
  std::vector<std::string> known;
  for (const auto& sharding : scaletune::job::kStateShardings)
    known.push_back(state_sharding_text(sharding));
  std::vector<std::string> sorted_values = values;
  std::ranges::sort(known);
  std::ranges::sort(sorted_values);
  EXPECT_EQ(sorted_values, known);
}

TEST(TransformerSweepErrors, StateShardingValuesAreKnownAndDistinct) {
  expect_error(with_sweep("state_sharding = [\"zero4\"]"), "state_sharding", "state_sharding",
               "unknown state_sharding 'zero4'; expected one of replicated, zero1, zero2, zero3, "
               "zero1:memory_proportional, zero2:memory_proportional, zero3:memory_proportional, "
               "auto; did you mean 'zero1'?");
  expect_error(with_sweep("state_sharding = [\"zero2\", \"zero2:memory_proportinal\"]"),
               "zero2:memory_proportinal", "state_sharding",
               "did you mean 'zero2:memory_proportional'?");
  expect_error(with_sweep("state_sharding = [\"replicate\"]"), "state_sharding", "state_sharding",
               "did you mean 'replicated'?");
  expect_error(with_sweep("state_sharding = [\"replicated:memory_proportional\"]"),
               "state_sharding", "state_sharding",
               "unknown state_sharding 'replicated:memory_proportional'");
  expect_error(with_sweep("state_sharding = [\"zero1\", \"zero1\"]"), "state_sharding",
               "state_sharding", "state_sharding lists zero1 twice");
  expect_error(with_sweep("state_sharding = []"), "state_sharding", "state_sharding",
               "a sweep list must not be empty");
  expect_error(with_sweep("state_sharding = \"zero1\""), "state_sharding", "state_sharding",
               "string where a list of strings is expected");
  expect_error(with_sweep("state_sharding = [3]"), "state_sharding", "state_sharding",
               "integer where a string is expected");
}

TEST(TransformerSweepErrors, StateShardingIsForTransformerOnlyAndShardingForDlrmOnly) {
  const std::string resnet = resnet_job("state_sharding = [\"zero1\"]");
  expect_error(resnet, "state_sharding", "state_sharding",
               "state_sharding is not used by workload.kind = \"resnet50\": only kind "
               "transformer shards its training state; remove it");
  const std::string collectives = R"([job]
name = "c"
[workload]
kind = "collectives"
[sweep]
ranks = [1]
state_sharding = ["zero1"]
)";
  expect_error(collectives, "state_sharding", "state_sharding", "sweeps ranks only");
  expect_error(with_sweep("sharding = [\"table_wise\"]"), "sharding", "sharding",
               "only kind dlrm shards embedding tables; remove it (state_sharding shards the "
               "training state)");
}

// ---- [sweep] batch_split "proportional" and "auto" -----------------------------------------

TEST(TransformerSweep, ProfiledSplitsLeaveThePerRankBatchToTheRun) {
  const JobSpec job =
      parse_job_text(with_sweep("batch_split = [\"proportional\", \"auto\", \"even\"]"), kFile);
  EXPECT_EQ(job.sweep.batch_split, (std::vector<std::string>{"proportional", "auto", "even"}));
  const std::vector<Config> configs = expand_sweep(job);
  ASSERT_EQ(configs.size(), 6u);  // 2 ranks values x 3 splits
  for (const Config& c : configs) {
    SCOPED_TRACE(c.id);
    if (c.batch_split == "even") {
      EXPECT_EQ(c.per_rank_batch,
                std::vector<int>(static_cast<std::size_t>(c.ranks), c.global_batch / c.ranks));
    } else {
      EXPECT_TRUE(c.per_rank_batch.empty());
    }
  }
  EXPECT_EQ(configs[3].id, "transformer-r2-b8-proportional-fp32-replicated");
  EXPECT_EQ(configs[4].id, "transformer-r2-b8-auto-fp32-replicated");
  // A batch that splits evenly nowhere is fine for a profiled split: 7 samples over 2 ranks.
  const JobSpec odd = parse_job_text(
      replaced("global_batch = [8]", "global_batch = [7]\nbatch_split = [\"auto\"]"), kFile);
  EXPECT_EQ(ids_of(expand_sweep(odd)),
            (std::vector<std::string>{"transformer-r1-b7-auto-fp32-replicated",
                                      "transformer-r2-b7-auto-fp32-replicated"}));
}

TEST(TransformerSweepErrors, ProfiledSplitsNeedAGlobalBatchOfAtLeastTheRanks) {
  const std::string text =
      replaced("global_batch = [8]", "global_batch = [8, 3]\nbatch_split = [\"proportional\"]",
               replaced("ranks = [1, 2]", "ranks = [1, 4]"));
  expect_error(text, "3]", "global_batch",
               "3 samples cannot give each of 4 ranks at least one; batch_split 'proportional' "
               "needs a global_batch of at least every ranks value");
}

TEST(TransformerSweepErrors, ProfiledSplitsAreRejectedForOtherKinds) {
  const std::string resnet = resnet_job("batch_split = [\"even\", \"proportional\"]");
  expect_error(resnet, "batch_split", "batch_split",
               "batch_split 'proportional' splits the batch by a profile of each rank taken at "
               "run time, which only workload.kind = \"transformer\" does; use \"even\" or an "
               "explicit weight list");
  std::string auto_split = resnet;
  auto_split.replace(auto_split.find("\"proportional\""), 14, "\"auto\"");
  expect_error(auto_split, "batch_split", "batch_split", "batch_split 'auto' splits the batch");
  expect_error(with_sweep("batch_split = [\"proportionl\"]"), "batch_split", "batch_split",
               "unknown batch_split 'proportionl'; use \"even\", \"proportional\", \"auto\" or an "
               "explicit weight list; did you mean 'proportional'?");
}

// ---- expansion -----------------------------------------------------------------------------

TEST(TransformerSweep, StateShardingIsInnermostOfTheCartesianProduct) {
  const std::string sweep = R"([sweep]
ranks = [1, 2, 3]
global_batch = [6, 24]
batch_split = ["even", "proportional", [2, 1]]
state_sharding = ["zero2:memory_proportional", "replicated", "auto"]
)";
  const JobSpec job = parse_job_text(kJob.substr(0, kJob.find("[sweep]")) + sweep, kFile);
  // Naive reference: the nested loops DESIGN.md's "the sweep is their product" describes, ranks
  // outermost, a weight list only at the rank count of its length.
  std::vector<std::string> expected_ids;
  std::vector<std::vector<int>> expected_batches;
  for (const int ranks : {1, 2, 3})
    for (const int batch : {6, 24})
      for (const std::string split : {"even", "proportional", "w2_1"}) {
        if (split == "w2_1" && ranks != 2) continue;
        for (const std::string tail : {"zero2-memory_proportional", "replicated", "auto"}) {
          expected_ids.push_back("transformer-r" + std::to_string(ranks) + "-b" +
                                 std::to_string(batch) + "-" + split + "-fp32-" + tail);
          if (split == "even")
            expected_batches.push_back(
                std::vector<int>(static_cast<std::size_t>(ranks), batch / ranks));
          else if (split == "w2_1")
            expected_batches.push_back({batch * 2 / 3, batch / 3});  // exact: 3 divides batch
          else
            expected_batches.push_back({});
        }
      }
  const std::vector<Config> configs = expand_sweep(job);
  EXPECT_EQ(ids_of(configs), expected_ids);
  ASSERT_EQ(configs.size(), expected_batches.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    SCOPED_TRACE(configs[i].id);
    EXPECT_EQ(configs[i].per_rank_batch, expected_batches[i]);
    EXPECT_EQ(configs[i].workload, "transformer");
    EXPECT_EQ(configs[i].precision, DataType::fp32);
  }
  EXPECT_EQ(config_sharding_text(configs.front()), "zero2:memory_proportional");
  EXPECT_EQ(config_sharding_text(configs[1]), "replicated");
  EXPECT_EQ(config_sharding_text(configs[2]), "auto");
  EXPECT_EQ(
      std::ranges::count(ids_of(configs), "transformer-r3-b24-even-fp32-zero2-memory_proportional"),
      1);
}

TEST(TransformerSweep, ConfigIdWritesTheStateShardingsColonAsADash) {
  const Config config{
      .id = "",
      .workload = "transformer",
      .ranks = 3,
      .global_batch = 24,
      .batch_split = "even",
      .per_rank_batch = {8, 8, 8},
      .precision = DataType::fp32,
      .sharding = scaletune::job::StateSharding{scaletune::job::ZeroStage::zero2, true, false}};
  EXPECT_EQ(scaletune::job::config_id(config),
            "transformer-r3-b24-even-fp32-zero2-memory_proportional");
}

// ---- the plan text -------------------------------------------------------------------------

TEST(TransformerPlanText, DescribesTheOptionsAndShowsProfiledSplitsAsADash) {
  const JobSpec job = parse_job_text(
      replaced("global_batch = [4]", "global_batch = [4]\nbatch_split = [\"even\", \"auto\"]",
               kMinimalJob),
      kFile);
  const std::vector<std::string> lines =
      lines_of(scaletune::job::format_plan(job, expand_sweep(job), 1));
  ASSERT_EQ(lines.size(), 1u + 2u + 2u + 1u);  // header, names, units, 2 configurations, total
  EXPECT_EQ(lines[0],
            "job t: workload transformer (12 layers, hidden 768, 12 heads, seq_len 1024, vocab "
            "50257, ffn_mult 4, dropout 0.1, lr 0.0006), output results/t.h5");
  EXPECT_TRUE(std::regex_match(
      lines[1],
      std::regex(
          R"(#\s+id\s+ranks\s+global_batch\s+per_rank_batch\s+precision\s+state_sharding\s+runs)")))
      << lines[1];
  EXPECT_TRUE(std::regex_match(
      lines[3],
      std::regex(
          R"(0\s+transformer-r1-b4-even-fp32-replicated\s+1\s+4\s+4x1\s+fp32\s+replicated\s+yes)")))
      << lines[3];
  EXPECT_TRUE(std::regex_match(
      lines[4],
      std::regex(
          R"(1\s+transformer-r1-b4-auto-fp32-replicated\s+1\s+4\s+-\s+fp32\s+replicated\s+yes)")))
      << lines[4];
  // One layer and one head are singular.
  const JobSpec small =
      parse_job_text(replaced("kind = \"transformer\"",
                              "kind = \"transformer\"\nlayers = 1\nheads = 1", kMinimalJob),
                     kFile);
  EXPECT_TRUE(contains(lines_of(scaletune::job::format_plan(small, expand_sweep(small), 1))[0],
                       "(1 layer, hidden 768, 1 head, "));
}

TEST(TransformerJobErrors, AMemoryListShorterThanTheLargestRankCountIsRefused) {
  const std::string two_values = kJob + "[devices]\nmemory_gib = [1.0, 0.5]\n";
  EXPECT_EQ(parse_job_text(two_values, kFile).devices.memory_gib.size(), 2u);  // ranks <= 2
  const std::string text = replaced("ranks = [1, 2]", "ranks = [1, 4]", two_values);
  expect_error(text, "memory_gib", "memory_gib",
               "memory_gib lists 2 values but sweep.ranks goes up to 4; give one number for "
               "every rank, or a list with one value per rank");
}

}  // namespace
