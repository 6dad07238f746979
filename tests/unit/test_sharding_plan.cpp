// Sharding plans of the DLRM embedding tables: every scheme on 1..4 ranks covers each table
// exactly once (or replicates it), row and column blocks follow [i R / k, (i+1) R / k), the
// greedy placements equal a naive selection-based greedy and hand-worked examples, explicit
// plans, errors, the plan's text form, and a 2^40-row table.

#include "kernels/dlrm/sharding_plan.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sk = scaletune::kernels;
namespace job = scaletune::job;

namespace {

job::EmbeddingTableSpec table(const std::string& name, std::int64_t rows, int dim, double pooling) {
  return job::EmbeddingTableSpec{name, rows, dim, pooling};
}

/// The small table set of the issue: rows 100, 7, 1000, 3; dims 8 and 16; poolings 1..20.
job::DlrmOptions small_tables() {
  job::DlrmOptions options;
  options.tables = {table("t0", 100, 8, 1.0), table("t1", 7, 16, 20.0), table("t2", 1000, 8, 5.0),
                    table("t3", 3, 16, 12.0)};
  return options;
}

/// The [sweep] sharding value `text`: a built-in scheme by its name, else an explicit plan's.
job::DlrmSharding sharding(const std::string& text) {
  for (const auto scheme : job::kShardingSchemes)
    if (job::sharding_scheme_text(scheme) == text) return {scheme, ""};
  return {job::ShardingScheme::explicit_plan, text};
}

job::DlrmOptions tables_of_rows(const std::vector<std::int64_t>& rows) {
  job::DlrmOptions options;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    options.tables.push_back(table("t" + std::to_string(i), rows[i], 1, 1.0));
  }
  return options;
}

/// The rank of each table of a plan whose tables are all table_wise.
std::vector<int> owners(const sk::ShardingPlan& plan) {
  std::vector<int> ranks;
  for (const auto& t : plan.tables) {
    EXPECT_EQ(t.split, sk::ShardSplit::table_wise);
    EXPECT_EQ(t.shards.size(), 1u);
    ranks.push_back(t.shards.empty() ? -1 : t.shards.front().rank);
  }
  return ranks;
}

/// Counts how often each cell of `spec` is held by a shard; every count must be 1.
void expect_covered_once(const sk::TableSharding& sharding, const job::EmbeddingTableSpec& spec,
                         int ranks) {
  std::vector<int> held(static_cast<std::size_t>(spec.rows * spec.dim), 0);
  for (const auto& shard : sharding.shards) {
    ASSERT_GE(shard.rank, 0);
    ASSERT_LT(shard.rank, ranks);
    ASSERT_LE(0, shard.row_begin);
    ASSERT_LE(shard.row_begin, shard.row_end);
    ASSERT_LE(shard.row_end, spec.rows);
    ASSERT_LE(0, shard.col_begin);
    ASSERT_LE(shard.col_begin, shard.col_end);
    ASSERT_LE(shard.col_end, spec.dim);
    for (auto r = shard.row_begin; r < shard.row_end; ++r) {
      for (auto c = shard.col_begin; c < shard.col_end; ++c) {
        ++held[static_cast<std::size_t>(r * spec.dim + c)];
      }
    }
  }
  for (std::size_t cell = 0; cell < held.size(); ++cell) {
    ASSERT_EQ(held[cell], 1) << spec.name << " cell " << cell;
  }
}

void expect_replicated(const sk::TableSharding& sharding, const job::EmbeddingTableSpec& spec,
                       int ranks) {
  ASSERT_EQ(sharding.shards.size(), static_cast<std::size_t>(ranks));
  for (int rank = 0; rank < ranks; ++rank) {
    const auto& shard = sharding.shards[static_cast<std::size_t>(rank)];
    EXPECT_EQ(shard.rank, rank);
    EXPECT_EQ(shard.row_begin, 0);
    EXPECT_EQ(shard.row_end, spec.rows);
    EXPECT_EQ(shard.col_begin, 0);
    EXPECT_EQ(shard.col_end, spec.dim);
  }
}

/// Naive greedy: repeatedly take the unplaced table of the highest cost (lowest index on ties)
/// and put it on the first rank of the lowest load.
std::vector<int> naive_greedy(const std::vector<double>& costs, int ranks) {
  std::vector<int> owner(costs.size(), -1);
  std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
  for (std::size_t placed = 0; placed < costs.size(); ++placed) {
    std::size_t best = costs.size();
    for (std::size_t t = 0; t < costs.size(); ++t) {
      if (owner[t] < 0 && (best == costs.size() || costs[t] > costs[best])) best = t;
    }
    std::size_t least = 0;
    for (std::size_t r = 1; r < load.size(); ++r) {
      if (load[r] < load[least]) least = r;
    }
    owner[best] = static_cast<int>(least);
    load[least] += costs[best];
  }
  return owner;
}

/// Block i of `total` over `parts` by the published formula, in plain 64-bit arithmetic
/// (exact while i * total < 2^63).
std::int64_t formula_begin(std::int64_t total, std::int64_t i, std::int64_t parts) {
  return i * total / parts;
}

}  // namespace

TEST(ShardingPlan, SplitNames) {
  EXPECT_EQ(job::shard_split_text(sk::ShardSplit::table_wise), "table_wise");
  EXPECT_EQ(job::shard_split_text(sk::ShardSplit::row_wise), "row_wise");
  EXPECT_EQ(job::shard_split_text(sk::ShardSplit::column_wise), "column_wise");
  EXPECT_EQ(job::shard_split_text(sk::ShardSplit::data_parallel), "data_parallel");
}

TEST(ShardingPlan, EverySchemeCoversOrReplicatesEveryTable) {
  const auto options = small_tables();
  for (const auto scheme : job::kShardingSchemes) {
    for (int ranks = 1; ranks <= 4; ++ranks) {
      const std::string_view name = job::sharding_scheme_text(scheme);
      SCOPED_TRACE(std::string(name) + " on " + std::to_string(ranks) + " ranks");
      const auto plan = sk::make_sharding_plan({scheme, ""}, options, ranks);
      EXPECT_EQ(plan.name, name);
      EXPECT_EQ(plan.ranks, ranks);
      ASSERT_EQ(plan.tables.size(), options.tables.size());
      for (std::size_t t = 0; t < plan.tables.size(); ++t) {
        if (scheme == job::ShardingScheme::data_parallel) {
          EXPECT_EQ(plan.tables[t].split, sk::ShardSplit::data_parallel);
          expect_replicated(plan.tables[t], options.tables[t], ranks);
        } else {
          expect_covered_once(plan.tables[t], options.tables[t], ranks);
        }
      }
    }
  }
}

TEST(ShardingPlan, RowBlocksFollowTheFormula) {
  const auto options = small_tables();
  for (int ranks = 1; ranks <= 4; ++ranks) {
    const auto plan = sk::make_sharding_plan(sharding("row_wise"), options, ranks);
    for (std::size_t t = 0; t < options.tables.size(); ++t) {
      const auto& shards = plan.tables[t].shards;
      const auto rows = options.tables[t].rows;
      EXPECT_EQ(plan.tables[t].split, sk::ShardSplit::row_wise);
      ASSERT_EQ(shards.size(), static_cast<std::size_t>(ranks));  // empty blocks included
      for (int i = 0; i < ranks; ++i) {
        const auto& shard = shards[static_cast<std::size_t>(i)];
        EXPECT_EQ(shard.rank, i);
        EXPECT_EQ(shard.row_begin, formula_begin(rows, i, ranks));
        EXPECT_EQ(shard.row_end, formula_begin(rows, i + 1, ranks));
        EXPECT_EQ(shard.cols(), options.tables[t].dim);
      }
    }
  }
  // 3 rows over 4 ranks: [0,0), [0,1), [1,2), [2,3).
  const auto four = sk::make_sharding_plan(sharding("row_wise"), options, 4);
  const auto& t3 = four.tables[3].shards;
  EXPECT_EQ(t3[0].rows(), 0);
  EXPECT_EQ(t3[1].row_begin, 0);
  EXPECT_EQ(t3[3].row_end, 3);
}

TEST(ShardingPlan, ColumnBlocksFollowTheFormulaAndSkipEmptyOnes) {
  const auto options = small_tables();
  const auto plan = sk::make_sharding_plan(sharding("column_wise"), options, 3);
  const auto& t1 = plan.tables[1];  // dim 16 over 3: [0,5), [5,10), [10,16)
  EXPECT_EQ(t1.split, sk::ShardSplit::column_wise);
  ASSERT_EQ(t1.shards.size(), 3u);
  EXPECT_EQ(t1.shards[0].col_end, 5);
  EXPECT_EQ(t1.shards[1].col_begin, 5);
  EXPECT_EQ(t1.shards[1].col_end, 10);
  EXPECT_EQ(t1.shards[2].col_end, 16);
  EXPECT_EQ(t1.shards[2].rows(), 7);

  job::DlrmOptions narrow;
  narrow.tables = {table("n", 10, 2, 1.0)};  // dim 2 over 4: [0,0), [0,1), [1,1), [1,2)
  const auto narrow_plan = sk::make_sharding_plan(sharding("column_wise"), narrow, 4);
  const auto& shards = narrow_plan.tables[0].shards;
  ASSERT_EQ(shards.size(), 2u);
  EXPECT_EQ(shards[0].rank, 1);
  EXPECT_EQ(shards[0].col_begin, 0);
  EXPECT_EQ(shards[0].col_end, 1);
  EXPECT_EQ(shards[1].rank, 3);
  EXPECT_EQ(shards[1].col_begin, 1);
  EXPECT_EQ(shards[1].col_end, 2);
}

TEST(ShardingPlan, TableWiseIsRoundRobin) {
  const auto options = tables_of_rows({5, 9, 1, 7, 3, 8});
  EXPECT_EQ(owners(sk::make_sharding_plan(sharding("table_wise"), options, 4)),
            (std::vector<int>{0, 1, 2, 3, 0, 1}));
  EXPECT_EQ(owners(sk::make_sharding_plan(sharding("table_wise"), options, 1)),
            (std::vector<int>{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(owners(sk::make_sharding_plan(sharding("table_wise"), options, 8)),
            (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

// The textbook case where largest-first greedy misses the optimum: sizes 3, 3, 2, 2, 2 on two
// ranks. By hand: 3 -> r0, 3 -> r1, 2 -> r0 (3 vs 3: lower rank), 2 -> r1, 2 -> r0; loads 7 and
// 5 where 6 and 6 is possible.
TEST(ShardingPlan, SizeGreedyTextbookCase) {
  EXPECT_EQ(owners(sk::make_sharding_plan(sharding("table_wise:size_greedy"),
                                          tables_of_rows({3, 3, 2, 2, 2}), 2)),
            (std::vector<int>{0, 1, 0, 1, 0}));
  // The same sizes in another order: t1, t3 (the 3s, in table order), then t0, t2, t4.
  EXPECT_EQ(owners(sk::make_sharding_plan(sharding("table_wise:size_greedy"),
                                          tables_of_rows({2, 3, 2, 3, 2}), 2)),
            (std::vector<int>{0, 0, 1, 1, 0}));
}

// A (1000 rows, dim 8, pooling 1): size 32000 B, lookups 8000; B (100, 8, 20): 3200 B, 16000;
// C (500, 8, 1): 16000 B, 4000. Size: A -> r0, C -> r1, B -> r1. Lookups: B -> r0, A -> r1,
// C -> r1 (8000 < 16000).
TEST(ShardingPlan, SizeAndLookupGreedyDifferByHand) {
  job::DlrmOptions options;
  options.tables = {table("A", 1000, 8, 1.0), table("B", 100, 8, 20.0), table("C", 500, 8, 1.0)};
  EXPECT_EQ(owners(sk::make_sharding_plan(sharding("table_wise:size_greedy"), options, 2)),
            (std::vector<int>{0, 1, 1}));
  EXPECT_EQ(owners(sk::make_sharding_plan(sharding("table_wise:lookup_greedy"), options, 2)),
            (std::vector<int>{1, 0, 1}));
}

TEST(ShardingPlan, GreedyMatchesNaiveGreedy) {
  std::mt19937 engine(7);
  for (int trial = 0; trial < 50; ++trial) {
    job::DlrmOptions options;
    const auto count = 1 + engine() % 40;      // beyond 16, std::sort is not stable
    for (std::size_t t = 0; t < count; ++t) {  // few distinct values, so ties happen
      options.tables.push_back(table("t" + std::to_string(t), 1 + engine() % 6, 8 << (engine() % 2),
                                     1.0 + engine() % 20));
    }
    std::vector<double> bytes, lookups, size_lookups, norm_lookups;
    double top_lookup = 0, top_bytes = 0;
    for (const auto& t : options.tables) {
      bytes.push_back(static_cast<double>(t.rows * t.dim * 4));
      lookups.push_back(static_cast<double>(t.rows * t.dim) * t.pooling);
      size_lookups.push_back(t.dim * t.pooling * std::log10(static_cast<double>(t.rows)));
      top_lookup = std::max(top_lookup, t.dim * t.pooling);
      top_bytes = std::max(top_bytes, bytes.back());
    }
    for (std::size_t t = 0; t < options.tables.size(); ++t)
      norm_lookups.push_back(options.tables[t].dim * options.tables[t].pooling / top_lookup +
                             bytes[t] / top_bytes);
    for (int ranks = 1; ranks <= 4; ++ranks) {
      const auto plan = [&](const char* text) {
        return owners(sk::make_sharding_plan(sharding(text), options, ranks));
      };
      EXPECT_EQ(plan("table_wise:size_greedy"), naive_greedy(bytes, ranks));
      EXPECT_EQ(plan("table_wise:lookup_greedy"), naive_greedy(lookups, ranks));
      EXPECT_EQ(plan("table_wise:size_lookup_greedy"), naive_greedy(size_lookups, ranks));
      EXPECT_EQ(plan("table_wise:norm_lookup_greedy"), naive_greedy(norm_lookups, ranks));
    }
  }
}

// A (1000 rows, dim 8, pooling 1): size-lookup 8 x 1 x 3 = 24; B (100, 8, 20): 8 x 20 x 2 = 320;
// C (10, 16, 2): 16 x 2 x 1 = 32. B -> r0, C -> r1, A -> r1 (32 < 320).
TEST(ShardingPlan, SizeLookupGreedyByHand) {
  job::DlrmOptions options;
  options.tables = {table("A", 1000, 8, 1.0), table("B", 100, 8, 20.0), table("C", 10, 16, 2.0)};
  EXPECT_EQ(owners(sk::make_sharding_plan(sharding("table_wise:size_lookup_greedy"), options, 2)),
            (std::vector<int>{1, 0, 1}));
}

// The random sharder: the same draw every time (seed 1), every rank used on enough tables,
// and each table's rank uniform: 4000 tables on 4 ranks give each rank 1000 +- 4 sigma.
TEST(ShardingPlan, RandomIsReproducibleAndUniform) {
  const auto options = tables_of_rows(std::vector<std::int64_t>(4000, 10));
  const auto first = owners(sk::make_sharding_plan(sharding("table_wise:random"), options, 4));
  EXPECT_EQ(owners(sk::make_sharding_plan(sharding("table_wise:random"), options, 4)), first);
  std::vector<int> count(4, 0);
  for (int r : first) ++count.at(static_cast<std::size_t>(r));
  const double sigma = std::sqrt(4000 * 0.25 * 0.75);
  for (int c : count) EXPECT_NEAR(c, 1000.0, 4 * sigma);
}

TEST(ShardingPlan, ExplicitPlanPlacesTablesInTableOrder) {
  auto options = small_tables();
  options.plans = {job::ExplicitPlan{"mine",
                                     {{"t3", job::ShardSplit::data_parallel, {}},
                                      {"t1", job::ShardSplit::row_wise, {3, 1}},
                                      {"t0", job::ShardSplit::table_wise, {2}},
                                      {"t2", job::ShardSplit::column_wise, {0, 1, 2}}}}};
  const auto plan = sk::make_sharding_plan(sharding("mine"), options, 4);
  EXPECT_EQ(plan.name, "mine");
  ASSERT_EQ(plan.tables.size(), 4u);
  EXPECT_EQ(owners(sk::ShardingPlan{"", 4, {plan.tables[0]}}), (std::vector<int>{2}));
  const auto& t1 = plan.tables[1];  // 7 rows over [3, 1]: [0,3) on r3, [3,7) on r1
  EXPECT_EQ(t1.split, sk::ShardSplit::row_wise);
  ASSERT_EQ(t1.shards.size(), 2u);
  EXPECT_EQ(t1.shards[0].rank, 3);
  EXPECT_EQ(t1.shards[0].row_end, 3);
  EXPECT_EQ(t1.shards[1].rank, 1);
  EXPECT_EQ(t1.shards[1].row_begin, 3);
  EXPECT_EQ(t1.shards[1].row_end, 7);
  const auto& t2 = plan.tables[2];  // dim 8 over 3: [0,2), [2,5), [5,8)
  ASSERT_EQ(t2.shards.size(), 3u);
  EXPECT_EQ(t2.shards[1].col_begin, 2);
  EXPECT_EQ(t2.shards[2].col_begin, 5);
  for (std::size_t t = 0; t < 3; ++t) expect_covered_once(plan.tables[t], options.tables[t], 4);
  expect_replicated(plan.tables[3], options.tables[3], 4);
}

TEST(ShardingPlan, ErrorsNameWhatIsWrong) {
  auto options = small_tables();
  auto error_of = [&](const std::string& text, int ranks) {
    try {
      sk::make_sharding_plan(sharding(text), options, ranks);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("row_wise", 0).find("expected at least 1"), std::string::npos);
  const auto unknown = error_of("round_robin", 2);
  EXPECT_EQ(unknown, "unknown sharding plan 'round_robin' (the workload's plans: none)");

  const std::vector<job::TablePlacement> good = {{"t0", job::ShardSplit::table_wise, {0}},
                                                 {"t1", job::ShardSplit::row_wise, {0, 1}},
                                                 {"t2", job::ShardSplit::column_wise, {1}},
                                                 {"t3", job::ShardSplit::data_parallel, {}}};
  auto with = [&](std::size_t index, job::TablePlacement placement) {
    auto tables = good;
    tables[index] = std::move(placement);
    options.plans = {job::ExplicitPlan{"p", tables}};
    return error_of("p", 2);
  };
  EXPECT_EQ(with(0, good[0]), "no error");
  const auto far = with(1, {"t1", job::ShardSplit::row_wise, {0, 2}});
  for (const auto* part : {"plan 'p'", "table 't1'", "rank 2"}) {
    EXPECT_NE(far.find(part), std::string::npos) << far;
  }
  const auto stranger = with(3, {"t9", job::ShardSplit::data_parallel, {}});
  EXPECT_NE(stranger.find("table 't9'"), std::string::npos) << stranger;
  EXPECT_NE(stranger.find("plan 'p'"), std::string::npos) << stranger;
  options.plans = {job::ExplicitPlan{"p", {good[0], good[1], good[2]}}};
  const auto missing = error_of("p", 2);
  EXPECT_NE(missing.find("table 't3'"), std::string::npos) << missing;
  EXPECT_NE(with(0, {"t0", job::ShardSplit::table_wise, {0, 1}}).find("got 2 ranks"),
            std::string::npos);
  EXPECT_NE(with(0, {"t0", job::ShardSplit::table_wise, {-1}}).find("rank -1"), std::string::npos);
}

TEST(ShardingPlan, DescribePlanExactText) {
  job::DlrmOptions options;
  options.tables = {table("t0", 10, 16, 1.0), table("t1", 100, 16, 1.0), table("t2", 5, 16, 1.0),
                    table("emb", 4, 16, 1.0)};
  options.plans = {job::ExplicitPlan{"doc",
                                     {{"t0", job::ShardSplit::table_wise, {1}},
                                      {"t1", job::ShardSplit::row_wise, {0, 1}},
                                      {"t2", job::ShardSplit::data_parallel, {}},
                                      {"emb", job::ShardSplit::column_wise, {1, 0}}}}};
  EXPECT_EQ(sk::describe_plan(sk::make_sharding_plan(sharding("doc"), options, 2), options),
            "t0:table_wise[r1]; t1:row_wise[r0:rows=0-50,r1:rows=50-100]; "
            "t2:data_parallel[all]; emb:column_wise[r1:cols=0-8,r0:cols=8-16]");
  options.tables.resize(1);
  EXPECT_EQ(sk::describe_plan(sk::make_sharding_plan(sharding("row_wise"), options, 3), options),
            "t0:row_wise[r0:rows=0-3,r1:rows=3-6,r2:rows=6-10]");
  const auto two = sk::make_sharding_plan(sharding("table_wise"), small_tables(), 2);
  EXPECT_THROW(sk::describe_plan(two, options), std::invalid_argument);
}

// rows = 2^40 over k ranks: i * R stays below 2^63 for k <= 2^20, so the formula's plain
// 64-bit value is the reference; blocks are contiguous, cover [0, 2^40) and differ by <= 1.
TEST(ShardingPlan, HugeTableSplitsWithoutOverflow) {
  const std::int64_t rows = std::int64_t{1} << 40;
  job::DlrmOptions options;
  options.tables = {table("huge", rows, 128, 1.0)};
  for (const int ranks : {3, 7, (1 << 20) - 1, 1 << 20}) {
    SCOPED_TRACE(ranks);
    const auto plan = sk::make_sharding_plan(sharding("row_wise"), options, ranks);
    const auto& shards = plan.tables[0].shards;
    ASSERT_EQ(shards.size(), static_cast<std::size_t>(ranks));
    std::int64_t next = 0;
    for (int i = 0; i < ranks; ++i) {
      const auto& shard = shards[static_cast<std::size_t>(i)];
      ASSERT_EQ(shard.row_begin, next);
      ASSERT_EQ(shard.row_end, formula_begin(rows, i + 1, ranks));
      ASSERT_LE(shard.rows() - rows / ranks, 1);
      ASSERT_GE(shard.rows(), rows / ranks);
      next = shard.row_end;
    }
    EXPECT_EQ(next, rows);
  }
  const auto bytes = sk::make_sharding_plan(sharding("table_wise:size_greedy"), options, 2);
  EXPECT_EQ(owners(bytes), (std::vector<int>{0}));
}
