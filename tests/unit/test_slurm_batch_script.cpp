// Slurm batch scripts for a sweep: the allocations (whole-node rank counts share the largest one;
// a count that would split unevenly over nodes gets its own), and the script text for fixed
// inputs on 1, 2 and 4 nodes with srun and mpirun, compared with text written out here.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "harness/slurm/batch_script.hpp"

namespace sl = scaletune::slurm;

namespace {

sl::SlurmSettings settings() {
  sl::SlurmSettings s;
  s.job_name = "scal";
  s.scaletune = "/opt/scaletune/bin/scaletune";
  s.job_file = "/home/u/jobs/scal.toml";
  s.out_file = "/home/u/results/scal.h5";
  s.preflight = false;  // its lines: SlurmBatchScript.PreflightPrintsEachNodesGpusAndFabric
  return s;
}

/// The comment and shell options that follow a script's directives.
std::string sweep_note(const std::string& counts, int nodes, int per_node) {
  return "# scaletune sweep 'scal': configurations of " + counts +
         " ranks\n# in one allocation of " + std::to_string(nodes) + " node(s), at most " +
         std::to_string(per_node) +
         " ranks per node. Each configuration runs on\n# a sub-communicator that takes whole "
         "nodes first; results are added to the result file.\nset -euo pipefail\n";
}

/// The lines every script writes after its exports, before its launch.
const std::string kSrunCpus =
    "# srun does not inherit --cpus-per-task from sbatch (Slurm 22.05 and later).\n"
    "export SRUN_CPUS_PER_TASK=\"$SLURM_CPUS_PER_TASK\"\n"
    "# CUDA_VISIBLE_DEVICES: set by Slurm for the GPUs it allocates; not overridden.\n";

}  // namespace

TEST(SlurmAllocations, WholeNodeCountsShareTheLargestAllocation) {
  const std::vector<int> counts = {16, 1, 2, 4, 8, 32, 4};
  const auto all = sl::allocations(counts, settings());
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].nodes, 4);
  EXPECT_EQ(all[0].tasks_per_node, 8);
  EXPECT_EQ(all[0].tasks, 32);
  EXPECT_EQ(all[0].rank_counts, (std::vector<int>{1, 2, 4, 8, 16, 32}));
}

TEST(SlurmAllocations, UnevenCountsGetTheirOwnEvenLayout) {
  const std::vector<int> counts = {1, 8, 12, 16, 20};
  const auto all = sl::allocations(counts, settings());
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].rank_counts, (std::vector<int>{1, 8, 16}));
  EXPECT_EQ(all[0].nodes, 2);
  // 12 ranks: ceil(12 / 8) = 2 nodes, 6 per node; 20 ranks: 3 nodes, at most 7 per node.
  EXPECT_EQ(all[1].rank_counts, std::vector<int>{12});
  EXPECT_EQ(all[1].nodes, 2);
  EXPECT_EQ(all[1].tasks_per_node, 6);
  EXPECT_EQ(all[1].tasks, 12);
  EXPECT_EQ(all[2].nodes, 3);
  EXPECT_EQ(all[2].tasks_per_node, 7);
  EXPECT_EQ(all[2].tasks, 20);
}

TEST(SlurmAllocations, SmallSweepsTakeOnlyTheRanksTheyNeedAndNodesAreCapped) {
  sl::SlurmSettings s = settings();
  const std::vector<int> small = {1, 2};
  const auto one = sl::allocations(small, s);
  EXPECT_EQ(one[0].nodes, 1);
  EXPECT_EQ(one[0].tasks_per_node, 2);
  s.nodes = 2;
  const std::vector<int> big = {32};
  try {
    sl::allocations(big, s);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "32 ranks need 4 nodes of 8 ranks; 2 nodes (--nodes, else [slurm] nodes) hold 16");
  }
  EXPECT_THROW(sl::allocations(std::vector<int>{}, s), std::invalid_argument);
}

TEST(SlurmBatchScript, OneNodeWithSrun) {
  const std::vector<int> counts = {1, 2, 4, 8};
  const auto scripts = sl::batch_scripts(counts, settings());
  ASSERT_EQ(scripts.size(), 1u);
  EXPECT_EQ(scripts[0].file_name, "scal.sbatch");
  EXPECT_EQ(scripts[0].text,
            "#!/bin/bash\n"
            "#SBATCH --job-name=scal\n"
            "#SBATCH --nodes=1\n"
            "#SBATCH --ntasks-per-node=8\n"
            "#SBATCH --gpus-per-node=8\n"
            "#SBATCH --cpus-per-task=1\n"
            "#SBATCH --exclusive\n"
            "#SBATCH --output=%x_%j.out\n" +
                sweep_note("1, 2, 4, 8", 1, 8) + kSrunCpus +
                "srun --mpi=pmix /opt/scaletune/bin/scaletune run /home/u/jobs/scal.toml --out "
                "/home/u/results/scal.h5 --resume --ranks 1,2,4,8\n");
}

TEST(SlurmBatchScript, TwoNodesWithPartitionAccountTimeAndNcclEnvironment) {
  sl::SlurmSettings s = settings();
  s.partition = "gpu";
  s.account = "proj1";
  s.time = "02:00:00";
  s.nccl_socket_ifname = "ib0";
  s.nccl_debug = "INFO";
  s.cpus_per_task = 12;
  const std::vector<int> counts = {8, 16};
  const auto scripts = sl::batch_scripts(counts, s);
  ASSERT_EQ(scripts.size(), 1u);
  EXPECT_EQ(scripts[0].text,
            "#!/bin/bash\n"
            "#SBATCH --job-name=scal\n"
            "#SBATCH --nodes=2\n"
            "#SBATCH --ntasks-per-node=8\n"
            "#SBATCH --gpus-per-node=8\n"
            "#SBATCH --cpus-per-task=12\n"
            "#SBATCH --exclusive\n"
            "#SBATCH --output=%x_%j.out\n"
            "#SBATCH --partition=gpu\n"
            "#SBATCH --account=proj1\n"
            "#SBATCH --time=02:00:00\n" +
                sweep_note("8, 16", 2, 8) +
                "export NCCL_SOCKET_IFNAME=ib0\n"
                "export NCCL_DEBUG=INFO\n" +
                kSrunCpus +
                "srun --mpi=pmix /opt/scaletune/bin/scaletune run /home/u/jobs/scal.toml --out "
                "/home/u/results/scal.h5 --resume --ranks 8,16\n");
}

TEST(SlurmBatchScript, FourNodesWithMpirunAndASplitCount) {
  sl::SlurmSettings s = settings();
  s.launcher = "mpirun";
  s.gpus_per_node = 4;
  s.tasks_per_node = 4;
  s.job_file = "/home/u/my jobs/scal.toml";  // quoted for the shell
  const std::vector<int> counts = {4, 8, 16, 6};
  const auto scripts = sl::batch_scripts(counts, s);
  ASSERT_EQ(scripts.size(), 2u);
  EXPECT_EQ(scripts[0].file_name, "scal.sbatch");
  EXPECT_EQ(scripts[1].file_name, "scal-6ranks.sbatch");
  const std::string launch =
      "mpirun -np \"$SLURM_NTASKS\" /opt/scaletune/bin/scaletune run '/home/u/my jobs/scal.toml' "
      "--out /home/u/results/scal.h5 --resume --ranks ";
  EXPECT_EQ(scripts[0].text,
            "#!/bin/bash\n"
            "#SBATCH --job-name=scal\n"
            "#SBATCH --nodes=4\n"
            "#SBATCH --ntasks-per-node=4\n"
            "#SBATCH --gpus-per-node=4\n"
            "#SBATCH --cpus-per-task=1\n"
            "#SBATCH --exclusive\n"
            "#SBATCH --output=%x_%j.out\n"
            "#SBATCH --dependency=singleton\n" +
                sweep_note("4, 8, 16", 4, 4) + kSrunCpus + launch + "4,8,16\n");
  // 6 ranks on nodes of 4: 2 nodes, 3 ranks each (6 = 2 x 3, so no --ntasks line).
  EXPECT_NE(scripts[1].text.find("#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=3\n"),
            std::string::npos)
      << scripts[1].text;
  EXPECT_NE(scripts[1].text.find(launch + "6\n"), std::string::npos);
  EXPECT_NE(scripts[1].text.find("#SBATCH --dependency=singleton\n"), std::string::npos);
}

TEST(SlurmBatchScript, CpuRanksRequestNoGpusAndUnevenTasksAreCounted) {
  sl::SlurmSettings s = settings();
  s.gpus_per_node = 0;
  s.tasks_per_node = 4;
  const std::vector<int> counts = {7};  // 2 nodes, at most 4 per node, 7 tasks
  const auto scripts = sl::batch_scripts(counts, s);
  ASSERT_EQ(scripts.size(), 1u);
  EXPECT_EQ(scripts[0].file_name, "scal-7ranks.sbatch");
  EXPECT_EQ(scripts[0].text.find("--gpus-per-node"), std::string::npos);
  EXPECT_NE(scripts[0].text.find("#SBATCH --nodes=2\n#SBATCH --ntasks=7\n"
                                 "#SBATCH --ntasks-per-node=4\n"),
            std::string::npos)
      << scripts[0].text;
}

TEST(SlurmBatchScript, ScriptsOfAJobAreKnownByName) {
  for (const char* name : {"scal.sbatch", "scal-6ranks.sbatch", "scal-128ranks.sbatch"})
    EXPECT_TRUE(sl::is_script_of(name, "scal")) << name;
  for (const char* name : {"scal-ranks.sbatch", "scal-6xranks.sbatch", "scal.sbatch.bak",
                           "scaling.sbatch", "scal-6ranks.sh", "other.sbatch", "scal"})
    EXPECT_FALSE(sl::is_script_of(name, "scal")) << name;
}

// An AWS-like EFA cluster (as its nccl-tests samples write them): GPUs by --gres, every node
// waited for, fabric variables exported in order, the ranks in a pyxis container with the shared
// file system mounted, srun without CPU binding.
TEST(SlurmBatchScript, EfaClusterWithGresExtraOptionsFabricEnvironmentAndContainer) {
  sl::SlurmSettings s = settings();
  s.container_image = "/fsx/images/scaletune.sqsh";
  s.container_mounts = {"/fsx:/fsx"};
  s.scaletune = "scaletune";
  s.job_file = "jobs/scal.toml";
  s.out_file = "/fsx/results/scal.h5";
  s.gres = true;
  s.cpus_per_task = 12;
  s.sbatch_args = {"--wait-all-nodes=1", "--mem=0"};
  s.srun_args = {"--cpu-bind=none"};
  s.env = {{"FI_PROVIDER", "efa"},
           {"FI_EFA_FORK_SAFE", "1"},
           {"NCCL_NET_PLUGIN", "/opt/aws-ofi-nccl/lib/libnccl-net.so"},
           {"NCCL_IB_HCA", "^mlx5_bond"}};
  const std::vector<int> counts = {8, 16};
  const auto scripts = sl::batch_scripts(counts, s);
  ASSERT_EQ(scripts.size(), 1u);
  EXPECT_EQ(scripts[0].text,
            "#!/bin/bash\n"
            "#SBATCH --job-name=scal\n"
            "#SBATCH --nodes=2\n"
            "#SBATCH --ntasks-per-node=8\n"
            "#SBATCH --gres=gpu:8\n"
            "#SBATCH --cpus-per-task=12\n"
            "#SBATCH --exclusive\n"
            "#SBATCH --output=%x_%j.out\n"
            "#SBATCH --wait-all-nodes=1\n"
            "#SBATCH --mem=0\n" +
                sweep_note("8, 16", 2, 8) +
                "export FI_PROVIDER=efa\n"
                "export FI_EFA_FORK_SAFE=1\n"
                "export NCCL_NET_PLUGIN=/opt/aws-ofi-nccl/lib/libnccl-net.so\n"
                "export NCCL_IB_HCA='^mlx5_bond'\n" +
                kSrunCpus +
                "srun --mpi=pmix --container-image=/fsx/images/scaletune.sqsh "
                "--container-mounts=/fsx:/fsx --cpu-bind=none scaletune run jobs/scal.toml --out "
                "/fsx/results/scal.h5 --resume --ranks 8,16\n");
}

// A CoreWeave-like InfiniBand cluster: an image from a registry, two mounts (one read-only), a
// workdir in the image, the HCAs and CPU binding left to the user's settings.
TEST(SlurmBatchScript, InfinibandClusterWithRegistryImageMountsAndWorkdir) {
  sl::SlurmSettings s = settings();
  s.container_image = "nvcr.io#nvidia/pytorch:24.01-py3";
  s.container_mounts = {"/mnt/data:/data:ro", "/mnt/home:/home"};
  s.container_workdir = "/home/u";
  s.scaletune = "scaletune";
  s.job_file = "jobs/scal.toml";
  s.out_file = "results/scal.h5";
  s.srun_args = {"--cpu-bind=none"};
  s.env = {{"NCCL_IB_HCA", "ibp"}, {"UCX_NET_DEVICES", "ibp0:1"}};
  const std::vector<int> counts = {16};
  const std::string text = sl::batch_scripts(counts, s)[0].text;
  EXPECT_NE(text.find("export NCCL_IB_HCA=ibp\nexport UCX_NET_DEVICES=ibp0:1\n"), std::string::npos)
      << text;
  EXPECT_TRUE(text.ends_with(
      "srun --mpi=pmix --container-image=nvcr.io#nvidia/pytorch:24.01-py3 "
      "--container-mounts=/mnt/data:/data:ro,/mnt/home:/home --container-workdir=/home/u "
      "--cpu-bind=none scaletune run jobs/scal.toml --out results/scal.h5 --resume --ranks "
      "16\n"))
      << text;
}

// cpus_per_task defaults to the node's cores over its ranks when cpus_per_node is given; an
// explicit cpus_per_task wins; gpus_option "gres" turns on --gres.
TEST(SlurmSettings, CpusPerTaskFollowsCpusPerNodeUnlessGiven) {
  scaletune::job::SlurmSpec j;
  scaletune::job::JobInfo info;
  info.name = "scal";
  j.gpus_per_node = 8;
  j.cpus_per_node = 96;
  EXPECT_EQ(sl::resolve(j, info).cpus_per_task, 12);
  j.cpus_per_node = 4;  // fewer cores than ranks: at least 1
  EXPECT_EQ(sl::resolve(j, info).cpus_per_task, 1);
  j.cpus_per_node = 96;
  j.cpus_per_task = 6;
  EXPECT_EQ(sl::resolve(j, info).cpus_per_task, 6);
  j.cpus_per_task = 0;
  j.tasks_per_node = 4;
  EXPECT_EQ(sl::resolve(j, info).cpus_per_task, 24);
  EXPECT_FALSE(sl::resolve(j, info).gres);
  j.gpus_option = "gres";
  EXPECT_TRUE(sl::resolve(j, info).gres);
}

// The preflight step: one srun task per node, right before the launch, whose failure is
// reported, not fatal; what it prints is checked by running it (e2e.test_slurm_plan).
TEST(SlurmBatchScript, PreflightRunsOneTaskPerNodeBeforeTheLaunch) {
  sl::SlurmSettings s = settings();
  s.preflight = true;
  const std::vector<int> counts = {8};
  const std::string text = sl::batch_scripts(counts, s)[0].text;
  const std::size_t start = text.find(
      "\nsrun --ntasks-per-node=1 --ntasks=\"$SLURM_JOB_NUM_NODES\" bash -o pipefail -c '\n");
  const std::size_t end = text.find("' || echo \"preflight: srun failed\"\nsrun --mpi=pmix ");
  ASSERT_NE(start, std::string::npos) << text;
  ASSERT_NE(end, std::string::npos) << text;
  EXPECT_LT(start, end);
  EXPECT_EQ(text.find('\'', text.find("-c '") + 4), end) << "one quoted command: " << text;
  s.preflight = false;
  EXPECT_EQ(sl::batch_scripts(counts, s)[0].text.find("preflight"), std::string::npos);
}
