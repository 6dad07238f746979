#include "harness/results/detail/file_image.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "harness/results/detail/h5_call.hpp"
#include "harness/results/result_error.hpp"

namespace scaletune::results::detail {
namespace {

/// The bytes of the in-memory file `file`, flushed into its image first.
std::vector<char> image_of(hid_t file, const H5Where& where) {
  SCALETUNE_H5(where, H5Fflush(file, H5F_SCOPE_GLOBAL));
  const ssize_t size = SCALETUNE_H5(where, H5Fget_file_image(file, nullptr, 0));
  std::vector<char> bytes(static_cast<std::size_t>(size));
  SCALETUNE_H5(where, H5Fget_file_image(file, bytes.data(), bytes.size()));
  return bytes;
}

/// A file descriptor closed on destruction (the error of an explicit close is checked).
class Descriptor {
 public:
  explicit Descriptor(int fd) : m_fd(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (m_fd >= 0) ::close(m_fd);
  }
  int fd() const { return m_fd; }
  /// Closes now; the close's errno (a deferred write error on NFS) when it fails, else 0.
  int close() {
    const int fd = m_fd;
    m_fd = -1;
    return ::close(fd) == 0 ? 0 : errno;
  }

 private:
  int m_fd;
};

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw WriteError(path + ": " + what + ": " + std::strerror(error), error);
}

/// Writes every byte of `bytes` to `fd`, retrying short writes and EINTR; errno or 0.
int write_all(int fd, const std::vector<char>& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

/// The file a write replaces: `path`, or where its symbolic links lead (renaming over the link
/// would replace the link and leave the file it names as it was).
std::string target_of(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_symlink(path, error)) return path;
  const std::filesystem::path target = std::filesystem::weakly_canonical(path, error);
  return error ? path : target.string();
}

/// `bytes` into the new file `temporary`, synced to the disk, with the permission bits of
/// `target` where it exists; throws (the temporary removed) if not.
void write_temporary(const std::string& path, const std::string& target,
                     const std::string& temporary, const std::vector<char>& bytes) {
  Descriptor out(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
  if (out.fd() < 0) fail(path, "cannot create " + temporary, errno);
  struct stat before {};
  if (::stat(target.c_str(), &before) == 0) ::fchmod(out.fd(), before.st_mode & 07777);
  int error = write_all(out.fd(), bytes);
  if (error == 0 && ::fsync(out.fd()) != 0) error = errno;
  if (const int closed = out.close(); error == 0) error = closed;
  if (error == 0) return;
  std::remove(temporary.c_str());
  fail(path, "cannot write " + std::to_string(bytes.size()) + " bytes to " + temporary, error);
}

/// fsync of the directory holding `path`, so the rename itself is on disk; errors ignored (some
/// file systems refuse fsync on a directory, and the file is whole either way).
void sync_directory(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  Descriptor dir(::open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.fd() >= 0) ::fsync(dir.fd());
}

}  // namespace

std::string image_temporary(const std::string& path) {
  return path + ".writing";
}

void replace_with_image(hid_t file, const std::string& path) {
  const H5Where whole{path, ""};
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code error;
  if (!parent.empty()) std::filesystem::create_directories(parent, error);
  if (error) whole.fail("cannot create directory " + parent.string() + ": " + error.message());
  const std::vector<char> bytes = image_of(file, whole);
  const std::string target = target_of(path);
  const std::string temporary = image_temporary(target);
  write_temporary(path, target, temporary, bytes);
  if (std::rename(temporary.c_str(), target.c_str()) != 0) {
    const int failed = errno;
    std::remove(temporary.c_str());
    fail(path, "cannot rename " + temporary + " over it", failed);
  }
  sync_directory(target);
}

}  // namespace scaletune::results::detail
