// The /collectives table: rows written in two appends read back unchanged, a file holding only
// /collectives (no /system, no /configs) is valid, the on-disk layout passes the shared layout
// checker, and a table missing a field or with a field of the wrong type is rejected, and so is
// appending to a table stored without chunking.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "harness/results/result_file.hpp"
#include "tests/unit/test_results_data.hpp"
#include "tests/unit/test_results_h5.hpp"

namespace scaletune::results {
namespace {

/// nccl-tests bus bandwidth factor (doc/PERFORMANCE.md): all_reduce 2(n-1)/n; all_gather,
/// reduce_scatter, all_to_all (n-1)/n; broadcast, reduce and the rest 1.
double bus_factor(const std::string& op, int n) {
  if (op == "all_reduce") return 2.0 * (n - 1) / n;
  if (op == "all_gather" || op == "reduce_scatter" || op == "all_to_all")
    return static_cast<double>(n - 1) / n;
  return 1.0;
}

/// A row whose bandwidths follow the definitions: algbw = bytes / time_us / 1e3 (GB/s,
/// GB = 1e9 bytes), busbw = algbw x bus_factor(op, ranks).
CollectiveResult row(const std::string& op, const std::string& dtype, std::int64_t bytes, int ranks,
                     double time_us, std::int64_t wrong, const std::string& source) {
  const double algbw_gbps = static_cast<double>(bytes) / time_us / 1e3;
  return {op,    dtype, bytes, ranks, time_us, algbw_gbps, algbw_gbps * bus_factor(op, ranks),
          wrong, source};
}

CollectiveResult on_nodes(CollectiveResult r, int nodes) {
  r.nodes = nodes;
  return r;
}

/// First append: an 8-rank sweep as nccl-tests prints it (sizes above 2^32 check int64).
std::vector<CollectiveResult> first_rows() {
  return {row("all_reduce", "float32", 8, 8, 19.61, 0, "nccl-tests"),
          on_nodes(row("all_reduce", "float32", 134'217'728, 8, 1'121.5, 0, "nccl-tests"), 2),
          row("all_gather", "bfloat16", 8'589'934'592, 8, 52'113.0, -1, "nccl-tests")};
}

CollectiveResult in_place(CollectiveResult r) {
  r.in_place = true;
  return r;
}

/// Second append: scaletune's own benchmark on 4 ranks, one verification failure.
std::vector<CollectiveResult> second_rows() {
  return {row("reduce_scatter", "float16", 1'048'576, 4, 48.25, 0, "scaletune"),
          in_place(row("broadcast", "float64", 33'554'432, 4, 2'907.75, 3, "scaletune: Größe ²"))};
}

std::vector<CollectiveResult> all_rows() {
  std::vector<CollectiveResult> rows = first_rows();
  for (const CollectiveResult& r : second_rows()) rows.push_back(r);
  return rows;
}

/// Provenance of a file of collective results only: no job file.
Provenance collectives_provenance() {
  Provenance p = test::sample_provenance();
  p.command_line = "scaletune import nccl-tests all_reduce_perf.log --out c.h5";
  p.job_toml.clear();
  return p;
}

void expect_same(const std::vector<CollectiveResult>& got,
                 const std::vector<CollectiveResult>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("collectives row " + std::to_string(i));
    EXPECT_EQ(got[i].op, want[i].op);
    EXPECT_EQ(got[i].dtype, want[i].dtype);
    EXPECT_EQ(got[i].bytes, want[i].bytes);
    EXPECT_EQ(got[i].ranks, want[i].ranks);
    EXPECT_EQ(got[i].time_us, want[i].time_us);  // float64 stored unchanged: bit for bit
    EXPECT_EQ(got[i].algbw_gbps, want[i].algbw_gbps);
    EXPECT_EQ(got[i].busbw_gbps, want[i].busbw_gbps);
    EXPECT_EQ(got[i].wrong, want[i].wrong);
    EXPECT_EQ(got[i].source, want[i].source);
    EXPECT_EQ(got[i].in_place, want[i].in_place);
    EXPECT_EQ(got[i].nodes, want[i].nodes);
  }
}

/// Writes a file with only /collectives holding `rows`, closed when this returns.
void write_collectives_only(const std::string& path, const std::vector<CollectiveResult>& rows) {
  ResultWriter writer = ResultWriter::create(path, collectives_provenance(), SystemInfo{});
  writer.append_collectives(rows);
}

/// Exit status of the shared layout checker on `path` (-1 when it did not exit normally).
int run_checker(const std::string& path) {
  const std::string command = "/usr/bin/python3 " + std::string(SCALETUNE_SHARED_DIR) +
                              "/checks/check_results.py '" + path + "'";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ResultCollectives, RoundTripOfTwoAppends) {
  const test::TempDir dir;
  const std::string path = dir.file("sweep.h5");
  {
    ResultWriter writer =
        ResultWriter::create(path, test::sample_provenance(), test::sample_system());
    writer.write_config(test::ok_config());
    writer.append_collectives(first_rows());
    writer.append_collectives(second_rows());
  }
  const ResultSet read = read_results(path);
  expect_same(read.collectives, all_rows());
  ASSERT_EQ(read.configs.size(), 1u);
  test::expect_same(read.configs[0], test::ok_config());
  ASSERT_TRUE(read.system.has_value());
  test::expect_same(*read.system, test::sample_system());
}

TEST(ResultCollectives, ResumeKeepsTheTable) {
  const test::TempDir dir;
  const std::string path = dir.file("resumed.h5");
  write_collectives_only(path, first_rows());
  {
    ResultWriter writer =
        ResultWriter::open_for_resume(path, collectives_provenance(), SystemInfo{});
    EXPECT_TRUE(writer.ok_config_ids().empty());
    writer.append_collectives(second_rows());
  }
  expect_same(read_results(path).collectives, all_rows());
}

TEST(ResultCollectives, FileWithOnlyCollectives) {
  const test::TempDir dir;
  const std::string path = dir.file("only.h5");
  write_collectives_only(path, first_rows());
  {
    const test::Id file = test::open_file(path);
    ASSERT_GE(file, 0);
    EXPECT_EQ(H5Lexists(file, "system", H5P_DEFAULT), 0);
    EXPECT_EQ(H5Lexists(file, "configs", H5P_DEFAULT), 0);
    EXPECT_EQ(test::string_attribute(file, "job_toml"), "");
  }
  const ResultSet read = read_results(path);
  EXPECT_FALSE(read.system.has_value());
  EXPECT_TRUE(read.configs.empty());
  test::expect_same(read.provenance, collectives_provenance());
  expect_same(read.collectives, first_rows());
}

TEST(ResultCollectives, WithoutTableReadsEmpty) {
  const test::TempDir dir;
  const std::string path = dir.file("sweep.h5");
  ResultWriter::create(path, test::sample_provenance(), test::sample_system())
      .write_config(test::ok_config());
  EXPECT_TRUE(read_results(path).collectives.empty());
}

TEST(ResultCollectives, LayoutOnDisk) {
  const test::TempDir dir;
  const std::string path = dir.file("layout.h5");
  write_collectives_only(path, all_rows());
  const test::Id file = test::open_file(path);
  const test::Id table = test::open_object(file, "collectives");
  ASSERT_GE(table, 0);
  EXPECT_EQ(test::dataset_shape(table), std::vector<hsize_t>{5});
  const test::Id space{H5Dget_space(table), H5Sclose};
  hsize_t max_rows = 0;
  H5Sget_simple_extent_dims(space, nullptr, &max_rows);
  EXPECT_EQ(max_rows, H5S_UNLIMITED);
  const test::Id dcpl{H5Dget_create_plist(table), H5Pclose};
  EXPECT_EQ(H5Pget_layout(dcpl), H5D_CHUNKED);
  EXPECT_EQ(test::string_attribute(table, "dims"), "rows");
  const test::Id type{H5Dget_type(table), H5Tclose};
  ASSERT_EQ(H5Tget_class(type), H5T_COMPOUND);
  struct Field {
    const char* name;
    H5T_class_t type_class;
    std::size_t size_bytes;  // 0 for a variable-length string
  };
  for (const Field& f :
       {Field{"op", H5T_STRING, 0}, Field{"dtype", H5T_STRING, 0}, Field{"bytes", H5T_INTEGER, 8},
        Field{"ranks", H5T_INTEGER, 4}, Field{"time_us", H5T_FLOAT, 8},
        Field{"algbw_GBps", H5T_FLOAT, 8}, Field{"busbw_GBps", H5T_FLOAT, 8},
        Field{"wrong", H5T_INTEGER, 8}, Field{"source", H5T_STRING, 0}}) {
    SCOPED_TRACE(std::string("field ") + f.name);
    const int index = H5Tget_member_index(type, f.name);
    ASSERT_GE(index, 0);
    const test::Id member{H5Tget_member_type(type, static_cast<unsigned>(index)), H5Tclose};
    const test::TypeInfo info = test::type_info(member);
    EXPECT_EQ(info.type_class, f.type_class);
    if (f.type_class != H5T_STRING) {
      EXPECT_EQ(info.size_bytes, f.size_bytes);
    } else {
      EXPECT_TRUE(info.variable_string);
      EXPECT_EQ(info.cset, H5T_CSET_UTF8);
    }
  }
}

TEST(ResultCollectives, LayoutCheckerAcceptsRowsFromTheDefinitions) {
  const test::TempDir dir;
  const std::string path = dir.file("good.h5");
  write_collectives_only(path, all_rows());
  EXPECT_EQ(run_checker(path), 0);
}

TEST(ResultCollectives, LayoutCheckerRejectsAWrongBusBandwidth) {
  const test::TempDir dir;
  const std::string path = dir.file("bad.h5");
  std::vector<CollectiveResult> rows = all_rows();
  rows[1].busbw_gbps = rows[1].algbw_gbps;  // all_reduce on 8 ranks: factor 1.75, not 1
  write_collectives_only(path, rows);
  EXPECT_EQ(run_checker(path), 1);
}

/// Adds a 1-row /collectives to the result file `path` with the plain C API: every field of
/// the layout (file types as DESIGN.md's table) but `left_out`, with `ranks` stored as
/// `ranks_type`. No data is written: the reader must refuse the table before reading rows.
void add_table(const std::string& path, const std::string& left_out, hid_t ranks_type) {
  const test::Id text{H5Tcopy(H5T_C_S1), H5Tclose};
  H5Tset_size(text, H5T_VARIABLE);
  H5Tset_cset(text, H5T_CSET_UTF8);
  const std::vector<std::pair<const char*, hid_t>> fields = {{"op", text},
                                                             {"dtype", text},
                                                             {"bytes", H5T_STD_I64LE},
                                                             {"ranks", ranks_type},
                                                             {"time_us", H5T_IEEE_F64LE},
                                                             {"algbw_GBps", H5T_IEEE_F64LE},
                                                             {"busbw_GBps", H5T_IEEE_F64LE},
                                                             {"wrong", H5T_STD_I64LE},
                                                             {"source", text}};
  std::size_t size_bytes = 0;
  for (const auto& [name, type] : fields)
    if (name != left_out) size_bytes += H5Tget_size(type);
  const test::Id row{H5Tcreate(H5T_COMPOUND, size_bytes), H5Tclose};
  std::size_t offset = 0;
  for (const auto& [name, type] : fields) {
    if (name == left_out) continue;
    ASSERT_GE(H5Tinsert(row, name, offset, type), 0);
    offset += H5Tget_size(type);
  }
  const test::Id file = test::open_file(path, H5F_ACC_RDWR);
  const hsize_t one = 1;
  const test::Id space{H5Screate_simple(1, &one, nullptr), H5Sclose};
  const test::Id table{
      H5Dcreate2(file, "collectives", row, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
  ASSERT_GE(table, 0);
}

/// The message read_results throws for `path`; "" when it reads the file.
std::string read_error(const std::string& path) {
  try {
    read_results(path);
  } catch (const ResultError& e) {
    return e.what();
  }
  return "";
}

/// A valid file without /collectives, then a hand-made table as add_table makes it.
std::string file_with_table(const test::TempDir& dir, const std::string& left_out,
                            hid_t ranks_type) {
  const std::string path = dir.file("hand-made.h5");
  ResultWriter::create(path, collectives_provenance(), SystemInfo{});
  add_table(path, left_out, ranks_type);
  return path;
}

TEST(ResultCollectives, HandMadeCompleteTableIsRead) {
  const test::TempDir dir;
  const std::string path = file_with_table(dir, "", H5T_STD_I32LE);
  EXPECT_EQ(read_error(path), "");
  const std::vector<CollectiveResult> rows = read_results(path).collectives;
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].in_place);  // DESIGN.md's fields only: in_place reads as out of place
  EXPECT_EQ(rows[0].nodes, 0);     // and the nodes as unknown
}

TEST(ResultCollectives, MissingFieldIsRejected) {
  const test::TempDir dir;
  const std::string path = file_with_table(dir, "busbw_GBps", H5T_STD_I32LE);
  const std::string message = read_error(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("/collectives"), std::string::npos) << message;
  EXPECT_NE(message.find("missing field busbw_GBps"), std::string::npos) << message;
}

TEST(ResultCollectives, FieldOfWrongTypeIsRejected) {
  const test::TempDir dir;
  const std::string path = file_with_table(dir, "", H5T_IEEE_F64LE);
  const std::string message = read_error(path);
  EXPECT_NE(message.find("/collectives"), std::string::npos) << message;
  EXPECT_NE(message.find("field ranks is float; expected integer"), std::string::npos) << message;
}

TEST(ResultCollectives, AppendToTableMissingFieldIsRejected) {
  const test::TempDir dir;
  const std::string path = file_with_table(dir, "wrong", H5T_STD_I32LE);
  ResultWriter writer = ResultWriter::open_for_resume(path, collectives_provenance(), SystemInfo{});
  try {
    writer.append_collectives(first_rows());
    FAIL() << "appended to a table without field wrong";
  } catch (const ResultError& e) {
    EXPECT_NE(std::string(e.what()).find("/collectives: missing field wrong"), std::string::npos)
        << e.what();
  }
}

TEST(ResultCollectives, AppendToContiguousTableIsRejectedBeforeWriting) {
  // Another tool's table, written without chunking: HDF5 cannot extend it.
  const test::TempDir dir;
  const std::string path = file_with_table(dir, "", H5T_STD_I32LE);
  {
    ResultWriter writer =
        ResultWriter::open_for_resume(path, collectives_provenance(), SystemInfo{});
    try {
      writer.append_collectives(first_rows());
      FAIL() << "appended to a contiguous table";
    } catch (const ResultError& e) {
      EXPECT_EQ(std::string(e.what()),
                path +
                    ": /collectives: has contiguous storage (written without chunking), so rows "
                    "cannot be appended; import into a new file");
    }
  }
  EXPECT_EQ(read_results(path).collectives.size(), 1u);
}

}  // namespace
}  // namespace scaletune::results
