// The file on disk has the layout DESIGN.md "Result file" fixes, looked at with plain HDF5
// calls: attribute types (int32, float64, variable-length UTF-8 strings as h5py reads str),
// the compound /system/ranks table, dataset shapes, row-major order, units and dims.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness/results/result_file.hpp"
#include "tests/unit/test_results_data.hpp"
#include "tests/unit/test_results_h5.hpp"

namespace scaletune::results {
namespace {

/// Writes the sample run (ok, timeout, oom) into `path`, closed when this returns.
void write_sample_run(const std::string& path, const SystemInfo& system) {
  ResultWriter writer = ResultWriter::create(path, test::sample_provenance(), system);
  writer.write_config(test::ok_config());
  writer.write_config(test::timeout_config());
  writer.write_config(test::oom_config());
}

void expect_utf8_string(hid_t obj, const std::string& name) {
  SCOPED_TRACE("attribute " + name);
  const test::TypeInfo type = test::attribute_type(obj, name);
  EXPECT_EQ(type.type_class, H5T_STRING);
  EXPECT_TRUE(type.variable_string);
  EXPECT_EQ(type.cset, H5T_CSET_UTF8);
}

void expect_number(hid_t obj, const std::string& name, H5T_class_t type_class,
                   std::size_t size_bytes) {
  SCOPED_TRACE("attribute " + name);
  const test::TypeInfo type = test::attribute_type(obj, name);
  EXPECT_EQ(type.type_class, type_class);
  EXPECT_EQ(type.size_bytes, size_bytes);
}

/// Checks dataset `name` of `group`: its element type, shape and units/dims attributes.
void expect_dataset(hid_t group, const std::string& name, H5T_class_t type_class,
                    const std::vector<hsize_t>& shape, const std::string& units,
                    const std::string& dims) {
  SCOPED_TRACE("dataset " + name);
  const test::Id dataset = test::open_object(group, name);
  ASSERT_GE(dataset, 0);
  const test::Id type{H5Dget_type(dataset), H5Tclose};
  EXPECT_EQ(H5Tget_class(type), type_class);
  EXPECT_EQ(test::dataset_shape(dataset), shape);
  EXPECT_EQ(test::string_attribute(dataset, "units"), units);
  EXPECT_EQ(test::string_attribute(dataset, "dims"), dims);
}

TEST(ResultLayout, RootAndSystem) {
  const test::TempDir dir;
  const std::string path = dir.file("layout.h5");
  write_sample_run(path, test::sample_system());
  const test::Id file = test::open_file(path);
  ASSERT_GE(file, 0);
  expect_number(file, "schema_version", H5T_INTEGER, 4);
  for (const char* name :
       {"scaletune_version", "git_sha", "created_utc", "command_line", "job_toml", "build_type"})
    expect_utf8_string(file, name);
  EXPECT_EQ(test::string_attribute(file, "job_toml"), test::sample_provenance().job_toml);

  const test::Id system = test::open_object(file, "system");
  expect_number(system, "world_size", H5T_INTEGER, 4);
  for (const char* name :
       {"mpi_library", "kokkos_version", "kokkos_backend", "cuda_runtime", "nccl_version", "blas",
        "launcher", "slurm_job_id", "slurm_nodelist", "slurm_step_id", "device_kind"})
    expect_utf8_string(system, name);
  EXPECT_EQ(test::string_attribute(system, "launcher"), "srun");
  EXPECT_EQ(test::string_attribute(system, "device_kind"), "cuda");
  EXPECT_EQ(test::string_attribute(system, "slurm_nodelist"), "node[01-02]");

  const test::Id ranks = test::open_object(system, "ranks");
  EXPECT_EQ(test::dataset_shape(ranks), std::vector<hsize_t>{4});
  const test::Id row{H5Dget_type(ranks), H5Tclose};
  ASSERT_EQ(H5Tget_class(row), H5T_COMPOUND);
  struct Field {
    std::string name;
    H5T_class_t type_class;
    std::size_t int_bytes;  // 0 for a variable-length string
  };
  const std::vector<Field> fields = {{"rank", H5T_INTEGER, 4},
                                     {"host", H5T_STRING, 0},
                                     {"local_rank", H5T_INTEGER, 4},
                                     {"device", H5T_STRING, 0},
                                     {"memory_bytes", H5T_INTEGER, 8}};
  ASSERT_EQ(H5Tget_nmembers(row), 5);
  for (unsigned i = 0; i < 5; ++i) {
    const Field& want = fields[i];
    char* name = H5Tget_member_name(row, i);
    EXPECT_EQ(std::string(name), want.name);
    H5free_memory(name);
    const test::Id field{H5Tget_member_type(row, i), H5Tclose};
    const test::TypeInfo info = test::type_info(field);
    EXPECT_EQ(info.type_class, want.type_class) << want.name;
    EXPECT_EQ(info.variable_string, want.int_bytes == 0) << want.name;
    if (want.int_bytes > 0) {
      EXPECT_EQ(info.size_bytes, want.int_bytes) << want.name;
    }
  }
  expect_utf8_string(ranks, "units");
  EXPECT_EQ(test::string_attribute(ranks, "dims"), "ranks");
}

TEST(ResultLayout, NoCudaOrNcclAttributeWithoutThem) {
  const test::TempDir dir;
  const std::string path = dir.file("host.h5");
  SystemInfo host = test::sample_system();
  host.cuda_runtime.clear();
  host.nccl_version.clear();
  write_sample_run(path, host);
  const test::Id file = test::open_file(path);
  const test::Id system = test::open_object(file, "system");
  EXPECT_FALSE(test::has_attribute(system, "cuda_runtime"));
  EXPECT_FALSE(test::has_attribute(system, "nccl_version"));
  EXPECT_TRUE(test::has_attribute(system, "mpi_library"));
  EXPECT_EQ(test::string_attribute(system, "device_kind"), "cuda");  // written, never left out
}

TEST(ResultLayout, NoSlurmAttributeOutsideSlurm) {
  const test::TempDir dir;
  const std::string path = dir.file("mpirun.h5");
  const SystemInfo mpirun = test::sample_system_outside_slurm("mpirun");
  write_sample_run(path, mpirun);
  const test::Id file = test::open_file(path);
  const test::Id system = test::open_object(file, "system");
  EXPECT_EQ(test::string_attribute(system, "launcher"), "mpirun");
  for (const char* name : {"slurm_job_id", "slurm_nodelist", "slurm_step_id"})
    EXPECT_FALSE(test::has_attribute(system, name)) << name;
}

TEST(ResultLayout, ConfigurationWithData) {
  const test::TempDir dir;
  const std::string path = dir.file("layout.h5");
  write_sample_run(path, test::sample_system());
  const ConfigResult want = test::ok_config();
  const test::Id file = test::open_file(path);
  const test::Id group = test::open_object(file, "/configs/" + want.id);
  ASSERT_GE(group, 0);

  for (const char* name :
       {"workload", "batch_split", "precision", "device_kind", "status", "error"})
    expect_utf8_string(group, name);
  EXPECT_EQ(test::string_attribute(group, "status"), "ok");
  EXPECT_EQ(test::string_attribute(group, "device_kind"), "cuda");
  for (const char* name : {"ranks", "global_batch"}) expect_number(group, name, H5T_INTEGER, 4);
  for (const char* name : {"params", "flops_per_sample", "throughput", "step_time_median",
                           "step_time_p95", "image_size", "width", "warmup"})
    expect_number(group, name, H5T_FLOAT, 8);
  expect_utf8_string(group, "state_sharding");
  EXPECT_EQ(test::string_attribute(group, "state_sharding"), "replicated");

  const test::Id per_rank = test::open_attribute(group, "per_rank_batch");
  std::vector<int> per_rank_batch(3);
  const test::Id space{H5Aget_space(per_rank), H5Sclose};
  EXPECT_EQ(H5Sget_simple_extent_npoints(space), 3);
  ASSERT_GE(H5Aread(per_rank, H5T_NATIVE_INT, per_rank_batch.data()), 0);
  EXPECT_EQ(per_rank_batch, want.per_rank_batch);

  expect_dataset(group, "step_time", H5T_FLOAT, {6}, "s", "iterations");
  expect_dataset(group, "rank_phase_time", H5T_FLOAT, {3, 6, 4}, "s", "ranks,iterations,phases");
  expect_dataset(group, "phase_names", H5T_STRING, {4}, "", "phases");
  expect_dataset(group, "rank_memory_peak", H5T_INTEGER, {3}, "bytes", "ranks");

  // Row-major [ranks, iterations, phases]: element (2, 4, 2) is rank 2's all-reduce in
  // iteration 4, which the sample sets to step_time[4] * (0.13 + 0.02 * 2).
  const test::Id phase_time = test::open_object(group, "rank_phase_time");
  std::vector<double> values(3 * 6 * 4);
  ASSERT_GE(H5Dread(phase_time, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
            0);
  EXPECT_DOUBLE_EQ(values[(2 * 6 + 4) * 4 + 2], want.step_time[4] * (0.13 + 0.04));
}

TEST(ResultLayout, ConfigurationWithoutDataHasNoDatasets) {
  const test::TempDir dir;
  const std::string path = dir.file("layout.h5");
  write_sample_run(path, test::sample_system());
  const test::Id file = test::open_file(path);
  const test::Id group = test::open_object(file, "/configs/" + test::timeout_config().id);
  H5G_info_t info{};
  ASSERT_GE(H5Gget_info(group, &info), 0);
  EXPECT_EQ(info.nlinks, 0u);
  EXPECT_EQ(test::string_attribute(group, "status"), "timeout");
  EXPECT_EQ(test::string_attribute(group, "error"), test::timeout_config().error);
  EXPECT_EQ(test::string_attribute(group, "device_kind"), "host");  // ConfigResult's default
}

}  // namespace
}  // namespace scaletune::results
