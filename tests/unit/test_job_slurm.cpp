// The [slurm] table of a job file: every key read, the defaults the batch scripts resolve, Slurm's
// time forms (sbatch(1)), and bad values named by file, line and key.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "harness/job/job_parser.hpp"
#include "harness/job/slurm_extras.hpp"
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

TEST(SlurmJob, ReadsFabricEnvironmentExtraOptionsAndGres) {
  const job::JobSpec spec =
      job::parse_job_text(kHead +
                              "gpus_option = \"gres\"\ncpus_per_node = 96\n"
                              "srun_args = [\"--cpu-bind=none\", \"--ntasks-per-core=1\"]\n"
                              "sbatch_args = [\"--wait-all-nodes=1\", \"--qos=high\"]\n"
                              "[slurm.env]\nUCX_TLS = \"rc,sm\"\nFI_PROVIDER = \"efa\"\n"
                              "NCCL_NET_PLUGIN = \"/opt/ofi/lib/libnccl-net.so\"\n",
                          kFile);
  const job::SlurmSpec& s = spec.slurm;
  EXPECT_EQ(s.gpus_option, "gres");
  EXPECT_EQ(s.cpus_per_node, 96);
  EXPECT_EQ(s.srun_args, (std::vector<std::string>{"--cpu-bind=none", "--ntasks-per-core=1"}));
  EXPECT_EQ(s.sbatch_args, (std::vector<std::string>{"--wait-all-nodes=1", "--qos=high"}));
  const std::vector<std::pair<std::string, std::string>> env = {
      {"FI_PROVIDER", "efa"},
      {"NCCL_NET_PLUGIN", "/opt/ofi/lib/libnccl-net.so"},
      {"UCX_TLS", "rc,sm"}};
  EXPECT_EQ(s.env, env);  // in name order
  const job::JobError e =
      job_error_of(kHead + "launcher = \"mpirun\"\nsrun_args = [\"--cpu-bind=none\"]\n", kFile);
  EXPECT_EQ(e.key(), "srun_args");
  EXPECT_TRUE(contains(e.what(), "apply to launcher = \"srun\"")) << e.what();
}

TEST(SlurmJob, BadContainerValuesNameFileLineAndKey) {
  const struct {
    std::string before, line, key, part;
  } cases[] = {
      {"", "container_image = \"img; id\"", "container_image", "letters, digits"},
      {"container_image = \"i\"\n", "container_mounts = [\"/fsx\"]", "container_mounts", "SRC:DST"},
      {"container_image = \"i\"\n", "container_mounts = [\"fsx:/fsx\"]", "container_mounts",
       "SRC:DST"},
      {"container_image = \"i\"\n", "container_mounts = \"/a:/b\"", "container_mounts", "list"},
      {"container_image = \"i\"\n", "container_workdir = \"home\"", "container_workdir",
       "absolute path"},
      {"", "container_workdir = \"/w\"", "container_workdir", "needs container_image"},
      {"container_image = \"i\"\n", "container_mounts = [\"/a:/w\", \"/b:/w/:ro\"]",
       "container_mounts", "'/a:/w' and '/b:/w/:ro' both mount onto /w;"},
      {"launcher = \"mpirun\"\n", "container_image = \"i\"", "container_image",
       "launcher = \"srun\""},
  };
  for (const auto& c : cases) {
    const std::string text = kHead + c.before + c.line + "\n";
    const job::JobError e = job_error_of(text, kFile);
    EXPECT_EQ(e.line(), line_of(text, c.line)) << c.line << ": " << e.what();
    EXPECT_EQ(e.key(), c.key) << e.what();
    EXPECT_TRUE(contains(e.what(), c.part)) << e.what();
  }
}

TEST(SlurmJob, ReadsTheContainer) {
  const job::JobSpec spec =
      job::parse_job_text(kHead +
                              "container_image = \"nvcr.io#nvidia/pytorch:24.01-py3\"\n"
                              "container_mounts = [\"/fsx:/fsx\", "
                              "\"/data:/data:ro\"]\ncontainer_workdir = \"/fsx/u\"\n",
                          kFile);
  EXPECT_EQ(spec.slurm.container_image, "nvcr.io#nvidia/pytorch:24.01-py3");
  EXPECT_EQ(spec.slurm.container_mounts, (std::vector<std::string>{"/fsx:/fsx", "/data:/data:ro"}));
  EXPECT_EQ(spec.slurm.container_workdir, "/fsx/u");
  for (const char* good : {"/a:/b", "/a/b-c:/d_e.f", "/a:/b:ro", "/a:/b:rw+slave"})
    EXPECT_TRUE(job::is_container_mount(good)) << good;
  for (const char* bad :
       {"", "/a", "a:/b", "/a:b", "/a:/b:", "/a:/b:r o", "/a b:/c", "/a:/b,/c:/d", "/a:/b:ro:x"})
    EXPECT_FALSE(job::is_container_mount(bad)) << bad;
  const job::ContainerMount m = job::split_container_mount("/data:/in/data:rw+ro");
  EXPECT_EQ(m.source, "/data");
  EXPECT_EQ(m.destination, "/in/data");
  EXPECT_EQ(m.flags, "rw+ro");
  EXPECT_TRUE(m.read_only());
  EXPECT_EQ(m.normal_destination(), "/in/data");
  EXPECT_EQ(job::split_container_mount("/a:/w/./x/../").normal_destination(), "/w");
  EXPECT_EQ(job::split_container_mount("/a:/").normal_destination(), "/");
  for (const char* writable : {"/a:/b", "/a:/b:rw", "/a:/b:rprivate", "/a:/b:rox+x"})
    EXPECT_FALSE(job::split_container_mount(writable).read_only()) << writable;
}

TEST(SlurmJob, ReservedNamesAndPrintableMessages) {
  EXPECT_EQ(job::slurm_option_name("--mem=0"), "mem");
  EXPECT_EQ(job::slurm_option_name("--exclusive"), "exclusive");
  for (const char* name : {"nodes", "ntasks-per-node", "gres", "output", "dependency", "wrap",
                           "gpus", "tres-per-node", "cpus-per-gpu"})
    EXPECT_EQ(job::written_sbatch_option(name), name);
  // Slurm takes an unambiguous abbreviation as the option (sbatch --nod=4 is --nodes=4).
  for (const auto& [abbreviation, option] :
       {std::pair{"nod", "nodes"}, std::pair{"exclu", "exclusive"}, std::pair{"part", "partition"},
        std::pair{"dep", "dependency"}, std::pair{"ntasks-per-n", "ntasks-per-node"},
        std::pair{"cpus-per-t", "cpus-per-task"}})
    EXPECT_EQ(job::written_sbatch_option(abbreviation), option) << abbreviation;
  for (const char* name : {"mem", "qos", "wait-all-nodes", "reservation", "ntasks-per-core",
                           "gres-flags", "nodelist", "exclude", "gpu-bind", ""})
    EXPECT_EQ(job::written_sbatch_option(name), "") << name;
  EXPECT_EQ(job::written_srun_option("mpi"), "mpi");
  EXPECT_EQ(job::written_srun_option("mp"), "mpi");
  EXPECT_EQ(job::written_srun_option("container-im"), "container-image");
  EXPECT_EQ(job::written_srun_option("ntasks"), "ntasks");
  for (const char* name : {"cpu-bind", "container-env", "container-remap-root", "gpu-bind"})
    EXPECT_EQ(job::written_srun_option(name), "") << name;
  for (const char* name : {"SLURM_NTASKS", "SRUN_CPUS_PER_TASK", "SBATCH_X", "PATH", "BASH_ENV",
                           "CUDA_VISIBLE_DEVICES", "OMPI_COMM_WORLD_LOCAL_RANK", "PMIX_RANK",
                           "PMI_RANK", "POSIXLY_CORRECT", "GLOBIGNORE", "EXECIGNORE"})
    EXPECT_TRUE(job::is_reserved_environment_name(name)) << name;
  for (const char* name : {"FI_PROVIDER", "NCCL_IB_HCA", "LD_LIBRARY_PATH", "SLURMX", "OMPIX"})
    EXPECT_FALSE(job::is_reserved_environment_name(name)) << name;
  EXPECT_EQ(job::printable(std::string("a\0b\n\x7f\xc3", 6)), "a\\x00b\\x0a\\x7f\\xc3");
}

TEST(SlurmJob, EnvironmentNamesValuesAndOptions) {
  for (const char* good : {"FI_PROVIDER", "_X", "NCCL_IB_HCA", "A1"})
    EXPECT_TRUE(job::is_environment_name(good)) << good;
  for (const char* bad : {"", "1A", "fi_provider", "A-B", "A B", "A=B"})
    EXPECT_FALSE(job::is_environment_name(bad)) << bad;
  for (const char* good : {"efa", "rc,sm", "^mlx5_bond", "/opt/x.so", "mlx5_0:1", "a=b", "50%"})
    EXPECT_TRUE(job::is_environment_value(good)) << good;
  for (const char* bad : {"", "a b", "$(id)", "a;b", "a'b", "a\nb", "`x`", "a*"})
    EXPECT_FALSE(job::is_environment_value(bad)) << bad;
  for (const char* good : {"--exclusive", "--cpu-bind=none", "--gres=gpu:8", "--qos=high-1"})
    EXPECT_TRUE(job::is_slurm_option(good)) << good;
  for (const char* bad : {"", "-N", "--", "--=x", "--Mem=0", "--mem=0 --x", "--mem=$(id)", "mem"})
    EXPECT_FALSE(job::is_slurm_option(bad)) << bad;
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
      {"srun_args = \"--cpu-bind=none\"", "srun_args", "list"},
      {"srun_args = [\"cpu-bind=none\"]", "srun_args", "one option --name"},
      {"sbatch_args = [\"--mem=0 --exclusive\"]", "sbatch_args", "one option --name"},
      {"sbatch_args = [\"--comment=$(id)\"]", "sbatch_args", "one option --name"},
      {"sbatch_args = [3]", "sbatch_args", "string"},
      {"gpus_option = \"gpu\"", "gpus_option", "gres"},
      {"cpus_per_node = 0", "cpus_per_node", ">= 1"},
      {"env = \"FI_PROVIDER=efa\"", "env", "table"},
      {"env = { fi_provider = \"efa\" }", "fi_provider", "[A-Z_][A-Z0-9_]*"},
      {"env = { FI_PROVIDER = \"efa; rm -rf x\" }", "FI_PROVIDER", "letters, digits"},
      {"env = { FI_EFA_FORK_SAFE = 1 }", "FI_EFA_FORK_SAFE", "string"},
      {"env = { SLURM_JOB_NUM_NODES = \"7\" }", "SLURM_JOB_NUM_NODES", "cannot be exported"},
      {"env = { PATH = \"/x\" }", "PATH", "relies on"},
      {"sbatch_args = [\"--nodes=1\"]", "sbatch_args", "'--nodes=1': the script sets --nodes"},
      {"sbatch_args = [\"--dependency=afterok:1\"]", "sbatch_args", "sets --dependency itself"},
      {"sbatch_args = [\"--nod=4\"]", "sbatch_args",
       "'--nod=4': Slurm takes it as --nodes, and the script sets --nodes itself"},
      {"srun_args = [\"--mpi=pmi2\"]", "srun_args", "sets --mpi itself"},
      {"srun_args = [\"--ntasks=3\"]", "srun_args", "sets --ntasks itself or from its allocation"},
      {"partition = \"a\\u0000b\"", "partition", "got \"a\\x00b\""},
      {"srun_args = [\"--x=a\\nb\"]", "srun_args", "'--x=a\\x0ab'"},
  };
  for (const auto& c : cases) {
    const std::string text = kHead + c.line + "\n";
    const job::JobError e = job_error_of(text, kFile);
    EXPECT_EQ(e.line(), line_of(text, c.line)) << c.line << ": " << e.what();
    EXPECT_EQ(e.key(), c.key) << e.what();
    EXPECT_TRUE(contains(e.what(), c.part)) << e.what();
  }
}
