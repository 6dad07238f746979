// The sharding search's estimates held to the step the describing backend records: with a
// simple op and collective cost law, the estimate of every built-in plan equals the one
// recomputed naively from each rank's described ops and collectives (the phases the DLRM step
// marks), on even and uneven splits and on tables whose row blocks are profiled from sorted
// indices (40,000 rows) and from counts per row (the others); the search is never worse than the
// best built-in plan and close to the best of every placement on small cases (brute force); bad
// input throws.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/workload_registry.hpp"
#include "harness/job/job_parser.hpp"
#include "harness/job/sweep.hpp"
#include "kernels/describe/op_costs.hpp"
#include "kernels/describe/step_description.hpp"
#include "kernels/dlrm/shard_costs.hpp"
#include "kernels/dlrm/sharding_search.hpp"
#include "kernels/workloads.hpp"

namespace scaletune::kernels {
namespace {

/// A cost law of our own: a per-call overhead plus bytes and FLOPs at fixed rates; collectives
/// a latency plus bytes at a fixed bandwidth (all-reduce moving twice the bytes).
double op_law(const trace::ComputeOp& op) {
  return 1e-6 + 1e-10 * op.bytes + 1e-11 * op.flops;
}

double collective_law(const trace::Collective& c) {
  if (c.participants <= 1) return 0.0;
  return 5e-6 + 2e-10 * static_cast<double>(c.bytes) * (c.op == "all_reduce" ? 2.0 : 1.0);
}

const StepCostModel kLaw{op_law, collective_law};

std::string job_text(int ranks, const std::string& split) {
  return R"(
[job]
name = "search-test"
[workload]
kind = "dlrm"
bottom_mlp = [16, 8]
top_mlp = [16, 1]
index_distribution = "zipf:1.1"
embedding_optimizer = "rowwise_adagrad"
[[workload.tables]]
rows = 5000
dim = 8
pooling = 6
[[workload.tables]]
rows = 300
dim = 8
pooling = 2
[[workload.tables]]
rows = 40000
dim = 8
pooling = 1
[[workload.tables]]
rows = 3
dim = 8
pooling = 3
[[workload.tables]]
rows = 900
dim = 8
pooling = 11
[sweep]
ranks = [)" +
         std::to_string(ranks) +
         R"(]
global_batch = [60]
batch_split = [)" +
         split + R"(]
sharding = ["table_wise"]
[comm]
backend = "mpi"
bucket_mib = 0.01
)";
}

struct Setup {
  job::JobSpec job;
  job::Config config;
  core::WorkloadRegistry registry;
  std::vector<TableCosts> costs;
};

std::unique_ptr<Setup> setup(int ranks, const std::string& split) {
  auto s = std::make_unique<Setup>();
  s->job = job::parse_job_text(job_text(ranks, split), "search-test.toml");
  s->config = job::expand_sweep(s->job).front();
  register_workloads(s->registry);
  s->costs = table_costs(s->job.workload.dlrm, s->config.per_rank_batch, s->config.precision,
                         s->job.run.seed, s->job.comm.bucket_mib * 1024 * 1024, kLaw);
  return s;
}

double sum_if(const trace::RankTrace& t, const std::string& phase,
              const std::function<bool(const trace::ComputeOp&)>& keep) {
  double sum = 0.0;
  for (const trace::Event& e : t.events)
    if (e.kind == trace::EventKind::compute && t.phase_names[e.phase] == phase && keep(e.compute))
      sum += op_law(e.compute);
  return sum;
}

/// Rank r's collectives of `op` in `phase`, blocking only, timed.
std::vector<double> collective_times(const trace::RankTrace& t, const std::string& phase,
                                     const std::string& op) {
  std::vector<double> out;
  for (const trace::Event& e : t.events)
    if (e.kind == trace::EventKind::collective && t.phase_names[e.phase] == phase &&
        e.collective.op.starts_with(op) && !e.collective.started)
      out.push_back(collective_law(e.collective));
  return out;
}

/// The estimate of sharding_search.hpp recomputed from the described step of `sharding`.
double described_estimate(const Setup& s, const job::DlrmSharding& sharding, bool replicas) {
  job::Config config = s.config;
  config.sharding = sharding;
  const auto ranks =
      describe::describe_ranks(s.job, config, core::DeviceKind::host, s.registry.entry("dlrm"));
  const auto all = [](const trace::ComputeOp&) { return true; };
  const auto copies = [](const trace::ComputeOp& op) { return op.op == "copy_columns"; };
  const auto sparse = [](const trace::ComputeOp& op) { return op.op.starts_with("sparse_"); };
  double forward = 0, gather = 0, backward = 0, update = 0, both = 0, exchange = 0;
  double all_reduce = 0;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const trace::RankTrace& t = ranks[r];
    // the bottom MLP's output into z and dz back out of it: the same for every plan
    const double dense_copies = 2.0 * op_law(describe::copy_columns_op(
                                          s.config.per_rank_batch[r], 8, core::DType::fp32, false));
    forward = std::max(forward, sum_if(t, "emb_fwd", all));
    gather = std::max(gather, sum_if(t, "interaction", copies) - dense_copies +
                                  sum_if(t, "alltoall_bwd", copies));
    const double b = sum_if(t, "emb_bwd", all), u = sum_if(t, "optimizer", sparse);
    backward = std::max(backward, b);
    update = std::max(update, u);
    both = std::max(both, b + u);
    for (const double a : collective_times(t, "alltoall_fwd", "alltoall"))
      exchange = std::max(exchange, a);
    double reduced = 0;
    for (const double a : collective_times(t, "allreduce", "all_reduce")) reduced += a;
    all_reduce = std::max(all_reduce, reduced);
  }
  return forward + 2 * exchange + gather + (replicas ? backward + all_reduce + update : both);
}

void expect_near_relative(double got, double want, const std::string& what) {
  EXPECT_NEAR(got, want, 1e-9 * want) << what;
}

class EstimateAgainstDescription : public ::testing::TestWithParam<std::pair<int, std::string>> {};

TEST_P(EstimateAgainstDescription, EveryBuiltInPlan) {
  const auto [ranks, split] = GetParam();
  const auto s = setup(ranks, split);
  for (const job::ShardingScheme scheme : job::kShardingSchemes) {
    const PlanEstimate e =
        estimate_scheme(scheme, s->costs, s->job.workload.dlrm, s->config.per_rank_batch, kLaw);
    const double want =
        described_estimate(*s, {scheme, "", nullptr}, scheme == job::ShardingScheme::data_parallel);
    expect_near_relative(e.embedding_s, want, e.name + " on " + std::to_string(ranks) + " ranks");
    EXPECT_GT(e.embedding_s, 0.0);
  }
}

TEST_P(EstimateAgainstDescription, TheSearchPlanAndMixedPlacements) {
  const auto [ranks, split] = GetParam();
  const auto s = setup(ranks, split);
  const job::DlrmOptions& options = s->job.workload.dlrm;
  const PlanEstimate found = search_plan(s->costs, options, s->config.per_rank_batch, kLaw);
  auto choice = std::make_shared<job::ShardingChoice>();
  choice->plan = found.placement;
  const bool replicas = std::ranges::any_of(found.placement.tables, [](const auto& p) {
    return p.split == job::ShardSplit::data_parallel;
  });
  expect_near_relative(
      found.embedding_s,
      described_estimate(*s, {job::ShardingScheme::automatic, "", choice}, replicas), "search");
  // one table of each kind
  job::ExplicitPlan mixed{"auto", {}};
  std::vector<int> everyone(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) everyone[static_cast<std::size_t>(r)] = r;
  const job::ShardSplit splits[] = {job::ShardSplit::row_wise, job::ShardSplit::table_wise,
                                    job::ShardSplit::column_wise, job::ShardSplit::data_parallel,
                                    job::ShardSplit::table_wise};
  for (std::size_t t = 0; t < options.tables.size(); ++t) {
    const job::ShardSplit how = splits[t];
    mixed.tables.push_back({options.tables[t].name, how,
                            how == job::ShardSplit::table_wise      ? std::vector<int>{ranks - 1}
                            : how == job::ShardSplit::data_parallel ? std::vector<int>{}
                                                                    : everyone});
  }
  choice->plan = mixed;
  expect_near_relative(
      estimate_plan(mixed, s->costs, options, s->config.per_rank_batch, kLaw).embedding_s,
      described_estimate(*s, {job::ShardingScheme::automatic, "", choice}, true), "mixed");
}

INSTANTIATE_TEST_SUITE_P(Splits, EstimateAgainstDescription,
                         ::testing::Values(std::pair{1, std::string("\"even\"")},
                                           std::pair{2, std::string("\"even\"")},
                                           std::pair{3, std::string("\"even\"")},
                                           std::pair{3, std::string("[1.0, 2.0, 3.0]")}));

/// Every placement of every table (table_wise on each rank, row_wise, column_wise,
/// data_parallel), the lowest estimate.
double brute_force_best(const Setup& s, int ranks) {
  const job::DlrmOptions& options = s.job.workload.dlrm;
  const std::size_t per_table = static_cast<std::size_t>(ranks) + 3;
  std::vector<int> everyone(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) everyone[static_cast<std::size_t>(r)] = r;
  std::size_t plans = 1;
  for (std::size_t t = 0; t < options.tables.size(); ++t) plans *= per_table;
  double best = INFINITY;
  for (std::size_t code = 0; code < plans; ++code) {
    job::ExplicitPlan plan{"auto", {}};
    std::size_t rest = code;
    for (const job::EmbeddingTableSpec& table : options.tables) {
      const auto pick = static_cast<int>(rest % per_table);
      rest /= per_table;
      if (pick < ranks)
        plan.tables.push_back({table.name, job::ShardSplit::table_wise, {pick}});
      else if (pick == ranks)
        plan.tables.push_back({table.name, job::ShardSplit::row_wise, everyone});
      else if (pick == ranks + 1)
        plan.tables.push_back({table.name, job::ShardSplit::column_wise, everyone});
      else
        plan.tables.push_back({table.name, job::ShardSplit::data_parallel, {}});
    }
    best = std::min(
        best, estimate_plan(plan, s.costs, options, s.config.per_rank_batch, kLaw).embedding_s);
  }
  return best;
}

TEST(ShardingSearch, NeverWorseThanABuiltInAndNearTheBestOfEveryPlacement) {
  for (const int ranks : {2, 3}) {
    const auto s = setup(ranks, "\"even\"");
    const job::DlrmOptions& options = s->job.workload.dlrm;
    const std::vector<PlanEstimate> candidates =
        sharding_candidates(s->costs, options, s->config.per_rank_batch, kLaw);
    ASSERT_EQ(candidates.size(), job::kShardingSchemes.size() + 1);
    EXPECT_TRUE(std::ranges::is_sorted(candidates, {}, &PlanEstimate::embedding_s));
    const auto search = std::ranges::find(candidates, std::string("search"), &PlanEstimate::name);
    ASSERT_NE(search, candidates.end());
    for (const PlanEstimate& c : candidates)
      EXPECT_LE(search->embedding_s, c.embedding_s * (1 + 1e-12)) << c.name;
    const double best = brute_force_best(*s, ranks);
    EXPECT_LE(best, search->embedding_s * (1 + 1e-12));
    EXPECT_LE(search->embedding_s, 1.05 * best) << ranks << " ranks";
  }
}

TEST(ShardingSearch, CandidatesAreTheBuiltInPlansAndTheSearch) {
  const auto s = setup(2, "\"even\"");
  const job::DlrmOptions& options = s->job.workload.dlrm;
  const std::vector<PlanEstimate> candidates =
      sharding_candidates(s->costs, options, s->config.per_rank_batch, kLaw);
  for (const job::ShardingScheme scheme : job::kShardingSchemes) {
    const std::string name(job::sharding_scheme_text(scheme));
    const auto c = std::ranges::find(candidates, name, &PlanEstimate::name);
    ASSERT_NE(c, candidates.end()) << name;
    EXPECT_EQ(
        c->embedding_s,
        estimate_scheme(scheme, s->costs, options, s->config.per_rank_batch, kLaw).embedding_s);
    EXPECT_EQ(c->placement.tables.size(), options.tables.size());
  }
}

TEST(ShardingSearch, BadInputThrows) {
  const auto s = setup(2, "\"even\"");
  const job::DlrmOptions& options = s->job.workload.dlrm;
  std::vector<TableCosts> fewer(s->costs.begin(), s->costs.end() - 1);
  EXPECT_THROW(search_plan(fewer, options, s->config.per_rank_batch, kLaw), std::invalid_argument);
  EXPECT_THROW(estimate_scheme(job::ShardingScheme::explicit_plan, s->costs, options,
                               s->config.per_rank_batch, kLaw),
               std::invalid_argument);
  job::ExplicitPlan subset{"auto", {}};
  for (const job::EmbeddingTableSpec& t : options.tables)
    subset.tables.push_back({t.name, job::ShardSplit::row_wise, {1}});
  EXPECT_THROW(estimate_plan(subset, s->costs, options, s->config.per_rank_batch, kLaw),
               std::invalid_argument);
  EXPECT_THROW(table_costs(options, {}, job::DataType::fp32, 1, 1024, kLaw), std::invalid_argument);
}

}  // namespace
}  // namespace scaletune::kernels
