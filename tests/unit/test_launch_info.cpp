// Launch detection from simulated environments: the variables Open MPI 4.1's mpirun gives its
// processes (seen with `mpirun -np 1 env`), those an sbatch batch script and srun give theirs
// (sbatch(1), srun(1) "Output Environment Variables"), and none (a singleton).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "harness/mpi/launch_info.hpp"
#include "tests/support/scoped_env.hpp"

using scaletune::testing_support::ScopedEnv;
namespace scaletune::mpi {
namespace {

using Env = std::map<std::string, std::string, std::less<>>;

LaunchInfo detect_in(const Env& env) {
  return detect_launch([&env](std::string_view name) -> std::optional<std::string> {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

/// Env `base` with the variables of `more` added (or replaced).
Env with(Env base, const Env& more) {
  for (const auto& [name, value] : more) base[name] = value;
  return base;
}

/// What every process has whatever started it.
const Env kShell = {{"HOME", "/root"}, {"PATH", "/usr/bin:/bin"}, {"PWD", "/work"}};

/// What Open MPI 4.1.4's mpirun adds for rank 1 of 2 (a subset of `mpirun -np 2 env`).
const Env kMpirun = {{"OMPI_COMM_WORLD_SIZE", "2"},
                     {"OMPI_COMM_WORLD_RANK", "1"},
                     {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                     {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"},
                     {"OMPI_MCA_orte_launch", "1"},
                     {"OMPI_MCA_orte_ess_num_procs", "2"},
                     {"OMPI_APP_CTX_NUM_PROCS", "2"},
                     {"PMIX_RANK", "1"},
                     {"PMIX_NAMESPACE", "163446785"},
                     {"PMIX_SERVER_URI4", "163446784.0;tcp4://127.0.0.1:36341"}};

/// What an sbatch batch script of job 4242 on two nodes holds (sbatch(1)): no step id.
const Env kBatchScript = {{"SLURM_JOB_ID", "4242"},
                          {"SLURM_JOBID", "4242"},
                          {"SLURM_JOB_NODELIST", "node[01-02]"},
                          {"SLURM_NODELIST", "node[01-02]"},
                          {"SLURM_JOB_NUM_NODES", "2"},
                          {"SLURM_PROCID", "0"},
                          {"SLURM_LOCALID", "0"},
                          {"SLURM_NODEID", "0"},
                          {"SLURM_SUBMIT_DIR", "/work"}};

/// What srun --mpi=pmix adds for task 3 of step 7 (srun(1)), and what Open MPI's direct-launch
/// component (orte/mca/ess/pmi) puts into the environment during MPI_Init.
const Env kSrunTask = {{"SLURM_STEP_ID", "7"},
                       {"SLURM_STEPID", "7"},
                       {"SLURM_PROCID", "3"},
                       {"SLURM_LOCALID", "1"},
                       {"SLURM_NODEID", "1"},
                       {"SLURM_STEP_NODELIST", "node[01-02]"},
                       {"SLURM_STEP_NUM_TASKS", "4"},
                       {"PMIX_RANK", "3"},
                       {"PMIX_NAMESPACE", "slurm.pmix.4242.7"},
                       {"OMPI_MCA_orte_ess_num_procs", "4"},
                       {"OMPI_APP_CTX_NUM_PROCS", "4"}};

TEST(LaunchInfo, LauncherNames) {
  EXPECT_STREQ(to_string(Launcher::singleton), "singleton");
  EXPECT_STREQ(to_string(Launcher::mpirun), "mpirun");
  EXPECT_STREQ(to_string(Launcher::srun), "srun");
}

TEST(LaunchInfo, MpirunOutsideSlurm) {
  const LaunchInfo info = detect_in(with(kShell, kMpirun));
  EXPECT_EQ(info.launcher, Launcher::mpirun);
  EXPECT_EQ(info.slurm_job_id, "");
  EXPECT_EQ(info.slurm_nodelist, "");
  EXPECT_EQ(info.slurm_step_id, "");
}

TEST(LaunchInfo, MpirunInsideAnSbatchAllocation) {
  const LaunchInfo info = detect_in(with(with(kShell, kBatchScript), kMpirun));
  EXPECT_EQ(info.launcher, Launcher::mpirun);
  EXPECT_EQ(info.slurm_job_id, "4242");
  EXPECT_EQ(info.slurm_nodelist, "node[01-02]");
  EXPECT_EQ(info.slurm_step_id, "");
}

TEST(LaunchInfo, MpirunRankOnANodeWhoseDaemonSrunStarted) {
  // mpirun starts its daemons on the other nodes with srun: their ranks inherit the step.
  const Env env = with(with(with(kShell, kBatchScript), {{"SLURM_STEP_ID", "0"},
                                                         {"SLURM_STEPID", "0"},
                                                         {"SLURM_PROCID", "1"},
                                                         {"SLURM_NODEID", "1"}}),
                       kMpirun);
  const LaunchInfo info = detect_in(env);
  EXPECT_EQ(info.launcher, Launcher::mpirun);
  EXPECT_EQ(info.slurm_job_id, "4242");
  EXPECT_EQ(info.slurm_step_id, "");  // the daemons' step, not this run's
}

TEST(LaunchInfo, SrunWithPmix) {
  const LaunchInfo info = detect_in(with(with(kShell, kBatchScript), kSrunTask));
  EXPECT_EQ(info.launcher, Launcher::srun);
  EXPECT_EQ(info.slurm_job_id, "4242");
  EXPECT_EQ(info.slurm_nodelist, "node[01-02]");
  EXPECT_EQ(info.slurm_step_id, "7");
}

TEST(LaunchInfo, Singleton) {
  const LaunchInfo info = detect_in(kShell);
  EXPECT_EQ(info.launcher, Launcher::singleton);
  EXPECT_EQ(info.slurm_job_id, "");
  EXPECT_EQ(info.slurm_nodelist, "");
  EXPECT_EQ(info.slurm_step_id, "");
}

TEST(LaunchInfo, SingletonInABatchScriptStillRecordsTheJob) {
  const LaunchInfo info = detect_in(with(kShell, kBatchScript));
  EXPECT_EQ(info.launcher, Launcher::singleton);
  EXPECT_EQ(info.slurm_job_id, "4242");
  EXPECT_EQ(info.slurm_nodelist, "node[01-02]");
  EXPECT_EQ(info.slurm_step_id, "");
}

TEST(LaunchInfo, OlderSlurmNamesWhenTheNewerAreUnset) {
  const Env env = with(kShell, {{"SLURM_JOBID", "99"},
                                {"SLURM_NODELIST", "gpu[1,3]"},
                                {"SLURM_STEPID", "2"},
                                {"SLURM_STEP_ID", ""},  // set but empty counts as unset
                                {"SLURM_PROCID", "0"}});
  const LaunchInfo old_names = detect_in(env);
  EXPECT_EQ(old_names.launcher, Launcher::singleton);
  EXPECT_EQ(old_names.slurm_job_id, "99");
  EXPECT_EQ(old_names.slurm_nodelist, "gpu[1,3]");
  EXPECT_EQ(old_names.slurm_step_id, "");

  const LaunchInfo newer_first = detect_in(
      with(env, {{"SLURM_JOB_ID", "100"}, {"SLURM_JOB_NODELIST", "gpu2"}, {"SLURM_STEP_ID", "5"}}));
  EXPECT_EQ(newer_first.launcher, Launcher::srun);
  EXPECT_EQ(newer_first.slurm_job_id, "100");
  EXPECT_EQ(newer_first.slurm_nodelist, "gpu2");
  EXPECT_EQ(newer_first.slurm_step_id, "5");
}

TEST(LaunchInfo, SrunNeedsBothStepAndTaskId) {
  EXPECT_EQ(detect_in(with(kShell, {{"SLURM_STEP_ID", "7"}})).launcher, Launcher::singleton);
  EXPECT_EQ(detect_in(with(kShell, {{"SLURM_PROCID", "3"}})).launcher, Launcher::singleton);
}

TEST(LaunchInfo, RealEnvironmentOverloadReadsTheProcessEnvironment) {
  const ScopedEnv size("OMPI_COMM_WORLD_SIZE", std::nullopt);
  const ScopedEnv step("SLURM_STEP_ID", "11");
  const ScopedEnv stepid("SLURM_STEPID", std::nullopt);
  const ScopedEnv task("SLURM_PROCID", "0");
  const ScopedEnv job("SLURM_JOB_ID", "31337");
  const ScopedEnv nodes("SLURM_JOB_NODELIST", "cn[001-008]");
  const LaunchInfo info = detect_launch();
  EXPECT_EQ(info.launcher, Launcher::srun);
  EXPECT_EQ(info.slurm_job_id, "31337");
  EXPECT_EQ(info.slurm_nodelist, "cn[001-008]");
  EXPECT_EQ(info.slurm_step_id, "11");
}

}  // namespace
}  // namespace scaletune::mpi
