// The launches behind a result file's configurations: grouped by their launch records, and the
// sentence inspect and the report print when there is more than one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autotune/launches.hpp"

namespace scaletune::autotune {
namespace {

/// A configuration `id` that ran on `hosts` (one rank each) in the launch of Slurm job `job`.
results::ConfigResult ran(const std::string& id, const std::string& job, const std::string& started,
                          int world_size, const std::vector<std::string>& hosts) {
  results::ConfigResult c;
  c.id = id;
  c.ranks = static_cast<int>(hosts.size());
  results::LaunchRecord l{world_size, started, "srun", job, "0", {}};
  for (std::size_t r = 0; r < hosts.size(); ++r)
    l.ranks.push_back({static_cast<int>(r), hosts[r], 0, "cuda:0 NVIDIA H200", 0});
  c.launch = l;
  return c;
}

TEST(Launches, ConfigurationsOfOneLaunchAreCountedTogether) {
  results::ResultSet rs;
  rs.configs = {ran("a", "101", "2026-11-30T03:00:00Z", 8, {"n1"}),
                ran("b", "102", "2026-11-30T04:00:00Z", 16, {"n1", "n2"}),
                ran("c", "102", "2026-11-30T04:00:00Z", 16, {"n3", "n2"}),
                results::ConfigResult{}};  // skipped: no launch record
  const std::vector<LaunchSummary> launches = launches_of(rs);
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].slurm_job_id, "101");
  EXPECT_EQ(launches[0].configurations, 1u);
  EXPECT_EQ(launches[0].hosts, std::vector<std::string>{"n1"});
  EXPECT_EQ(launches[1].slurm_job_id, "102");
  EXPECT_EQ(launches[1].world_size, 16);
  EXPECT_EQ(launches[1].configurations, 2u);
  EXPECT_EQ(launches[1].hosts, (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(launches_sentence(rs),
            "Launches: 2 (Slurm job 101, srun, world size 8 on n1, from 2026-11-30T03:00:00Z: 1 "
            "configuration; Slurm job 102, srun, world size 16 on n1, n2 and n3, from "
            "2026-11-30T04:00:00Z: 2 configurations)");
}

TEST(Launches, TwoRunsOutsideSlurmDifferByTheirStart) {
  results::ResultSet rs;
  rs.configs = {ran("a", "", "2026-11-30T03:00:00Z", 2, {"h"}),
                ran("b", "", "2026-11-30T03:05:00Z", 2, {"h", "h"})};
  ASSERT_EQ(launches_of(rs).size(), 2u);
  EXPECT_EQ(launches_sentence(rs),
            "Launches: 2 (srun, world size 2 on h, from 2026-11-30T03:00:00Z: 1 configuration; "
            "srun, world size 2 on h, from 2026-11-30T03:05:00Z: 1 configuration)");
}

TEST(Launches, OneLaunchOrNoRecordsNeedNoSentence) {
  results::ResultSet rs;
  rs.configs = {ran("a", "7", "2026-11-30T03:00:00Z", 2, {"h"}),
                ran("b", "7", "2026-11-30T03:00:00Z", 2, {"h", "h"})};
  EXPECT_EQ(launches_of(rs).size(), 1u);
  EXPECT_EQ(launches_sentence(rs), "");
  EXPECT_EQ(launches_sentence(results::ResultSet{}), "");
}

}  // namespace
}  // namespace scaletune::autotune
