// The [slurm] table of a job file: every key read, the defaults the batch scripts resolve, Slurm's
// time forms (sbatch(1)), and bad values named by file, line and key.
#include <gtest/gtest.h>

#include <string>

#include "harness/job/job_parser.hpp"
#include "harness/job/slurm_time.hpp"
#include "harness/slurm/batch_script.hpp"
#include "tests/support/job_text.hpp"

namespace job = scaletune::job;
using scaletune::testing_support::contains;
using scaletune::testing_support::job_error_of;
using scaletune::testing_support::line_of;

namespace {

constexpr const char* kFile = "jobs/s.toml";
const std::string kHead =
    "[job]\nname = \"s\"\n[workload]\nkind = \"resnet50\"\n[sweep]\nranks = [1, 2]\n"
    "global_batch = [4]\n[slurm]\n";

}  // namespace

TEST(SlurmJob, ReadsEveryKey) {
  const job::JobSpec spec = job::parse_job_text(
      kHead +
          "nodes = 4\ngpus_per_node = 4\ntasks_per_node = 2\ncpus_per_task = 16\n"
          "partition = \"gpu\"\naccount = \"p1\"\ntime = \"1-02:00:00\"\nlauncher = \"mpirun\"\n"
          "nccl_socket_ifname = \"ib0\"\nnccl_debug = \"WARN\"\n",
      kFile);
  const job::SlurmSpec& s = spec.slurm;
  EXPECT_EQ(s.nodes, 4);
  EXPECT_EQ(s.gpus_per_node, 4);
  EXPECT_EQ(s.tasks_per_node, 2);
  EXPECT_EQ(s.cpus_per_task, 16);
  EXPECT_EQ(s.partition, "gpu");
  EXPECT_EQ(s.account, "p1");
  EXPECT_EQ(s.time, "1-02:00:00");
  EXPECT_EQ(s.launcher, "mpirun");
  EXPECT_EQ(s.nccl_socket_ifname, "ib0");
  EXPECT_EQ(s.nccl_debug, "WARN");
}

TEST(SlurmJob, AbsentTableResolvesToDefaults) {
  const job::JobSpec spec = job::parse_job_text(kHead, kFile);
  const auto s = scaletune::slurm::resolve(spec.slurm, spec.job);
  EXPECT_EQ(s.nodes, 0);
  EXPECT_EQ(s.gpus_per_node, 8);
  EXPECT_EQ(s.tasks_per_node, 8);
  EXPECT_EQ(s.cpus_per_task, 1);
  EXPECT_EQ(s.launcher, "srun");
  EXPECT_EQ(s.job_name, "s");
  EXPECT_TRUE(s.partition.empty() && s.nccl_debug.empty());
  // No GPUs: one rank per node unless tasks_per_node says otherwise.
  const job::JobSpec cpu = job::parse_job_text(kHead + "gpus_per_node = 0\n", kFile);
  EXPECT_EQ(scaletune::slurm::resolve(cpu.slurm, cpu.job).tasks_per_node, 1);
}

TEST(SlurmJob, Words) {
  for (const char* good : {"gpu", "gpu,debug", "proj-1_a.b", "ib0", "INFO", "a:b@c+d"})
    EXPECT_TRUE(job::is_slurm_word(good)) << good;
  for (const char* bad : {"", "a b", "gpu\necho x", "x$(id)", "a'b", "a;b", "a\"b"})
    EXPECT_FALSE(job::is_slurm_word(bad)) << bad;
}

TEST(SlurmJob, TimeForms) {
  for (const char* good : {"30", "30:00", "02:00:00", "1-0", "1-02:00", "1-02:00:00", "UNLIMITED"})
    EXPECT_TRUE(job::is_slurm_time(good)) << good;
  for (const char* bad : {"", "2h", "1:2:3:4", "-1", "1-", "1-2:3:4:5", "12:", ":5", "a-1"})
    EXPECT_FALSE(job::is_slurm_time(bad)) << bad;
}

TEST(SlurmJob, BadValuesNameFileLineAndKey) {
  const struct {
    std::string line, key, part;
  } cases[] = {
      {"nodes = 0", "nodes", ">= 1"},
      {"gpus_per_node = -1", "gpus_per_node", ">= 0"},
      {"tasks_per_node = 2.5", "tasks_per_node", "integer"},
      {"cpus_per_task = 0", "cpus_per_task", ">= 1"},
      {"time = \"2h\"", "time", "Slurm's --time forms"},
      {"launcher = \"srunn\"", "launcher", "srun"},
      {"partition = 3", "partition", "string"},
      {"partition = \"gpu\\necho INJECTED\"", "partition", "letters, digits"},
      {"account = \"a b\"", "account", "letters, digits"},
      {"nccl_socket_ifname = \"$(id)\"", "nccl_socket_ifname", "letters, digits"},
      {"nodez = 2", "nodez", "nodes"},
  };
  for (const auto& c : cases) {
    const std::string text = kHead + c.line + "\n";
    const job::JobError e = job_error_of(text, kFile);
    EXPECT_EQ(e.line(), line_of(text, c.line)) << c.line << ": " << e.what();
    EXPECT_EQ(e.key(), c.key) << e.what();
    EXPECT_TRUE(contains(e.what(), c.part)) << e.what();
  }
}
