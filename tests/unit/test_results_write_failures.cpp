// A write that fails part-way (here: past the file-size limit, RLIMIT_FSIZE, which fails
// write(2) with EFBIG as a full disk fails it with ENOSPC) leaves the result file exactly as it
// was: its configurations readable, nothing half-written, no temporary left; the error names
// the file, the OS error and the configuration; a resumed writer then stores the rest.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "harness/results/result_file.hpp"
#include "tests/unit/test_results_data.hpp"

namespace scaletune::results {
namespace {

/// The bytes of the file `path`.
std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Files written by this process may not grow past `bytes` while it lives (SIGXFSZ ignored,
/// so a write past it fails with EFBIG); the limit before is restored on destruction.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &m_before);
    m_signal = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lower = m_before;
    lower.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lower);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &m_before);
    std::signal(SIGXFSZ, m_signal);
  }

 private:
  rlimit m_before{};
  void (*m_signal)(int) = nullptr;
};

/// ok_config with 100,000 iterations: a configuration of about 4 MB.
ConfigResult large_config() {
  ConfigResult c = test::ok_config();
  c.step_time.assign(100'000, 0.4);
  c.step_time_median = c.step_time_p95 = 0.4;
  c.throughput = c.global_batch / 0.4;
  c.rank_phase_time.assign(c.step_time.size() * c.phase_names.size() * c.ranks, 0.1);
  return c;
}

TEST(ResultWriteFailures, AWriteThatFailsLeavesTheFileAsItWas) {
  const test::TempDir dir;
  const std::string path = dir.file("run.h5");
  const ConfigResult large = large_config();
  {
    ResultWriter writer =
        ResultWriter::create(path, test::sample_provenance(), test::sample_system());
    writer.write_config(test::timeout_config());
    const std::string before = bytes_of(path);
    std::string message;
    {
      const FileSizeLimit limit(before.size() + 4096);
      message = test::error_of([&] { writer.write_config(large); });
    }
    EXPECT_TRUE(test::contains(message, path + ": cannot write ")) << message;
    EXPECT_TRUE(test::contains(message, "File too large")) << message;
    EXPECT_TRUE(test::contains(message, "configuration " + large.id + " is not in it"));
    EXPECT_EQ(bytes_of(path), before);
    EXPECT_FALSE(std::filesystem::exists(path + ".writing"));
  }
  const ResultSet kept = read_results(path);
  ASSERT_EQ(kept.configs.size(), 1u);
  test::expect_same(kept.configs[0], test::timeout_config());

  ResultWriter resumed =
      ResultWriter::open_for_resume(path, test::sample_provenance(), test::sample_system());
  resumed.write_config(large);
  const ResultSet whole = read_results(path);
  ASSERT_EQ(whole.configs.size(), 2u);
  test::expect_same(whole.configs[0], large);  // "resnet50-r3-..." < "resnet50-r4-..."
  test::expect_same(whole.configs[1], test::timeout_config());
}

TEST(ResultWriteFailures, AResumedLinkStaysALinkAndTheFileKeepsItsPermissions) {
  const test::TempDir dir;
  const std::string real = dir.file("real.h5"), link = dir.file("link.h5");
  {
    ResultWriter writer =
        ResultWriter::create(real, test::sample_provenance(), test::sample_system());
    writer.write_config(test::timeout_config());
  }
  std::filesystem::permissions(real, std::filesystem::perms::owner_read |
                                         std::filesystem::perms::owner_write |
                                         std::filesystem::perms::group_read);
  std::filesystem::create_symlink("real.h5", link);
  ResultWriter resumed =
      ResultWriter::open_for_resume(link, test::sample_provenance(), test::sample_system());
  resumed.write_config(test::ok_config());
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(read_results(real).configs.size(), 2u);
  EXPECT_EQ(std::filesystem::status(real).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                std::filesystem::perms::group_read);
  EXPECT_FALSE(std::filesystem::exists(real + ".writing"));
}

}  // namespace
}  // namespace scaletune::results
