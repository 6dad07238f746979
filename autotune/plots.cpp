#include "autotune/plots.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>

#include "autotune/detail/gnuplot_script.hpp"

extern char** environ;

namespace scaletune::autotune {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxMessageChars = 200;
/// How often a running gnuplot is checked for having ended: a plot takes about 0.1 s.
constexpr std::chrono::milliseconds kPollInterval{10};

bool stem_chars_only(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
}

bool has_point(const Plot& plot) {
  return std::any_of(plot.curves.begin(), plot.curves.end(),
                     [](const Curve& curve) { return !curve.points.empty(); });
}

void check_plots(std::span<const Plot> plots, const std::string& prefix) {
  if (!stem_chars_only(prefix))
    throw std::invalid_argument("plot file prefix '" + prefix +
                                "': expected characters from [a-z0-9_-] only");
  std::set<std::string> names;
  for (std::size_t i = 0; i < plots.size(); ++i) {
    const std::string where = "plot " + std::to_string(i) + " '" + plots[i].name + "': ";
    if (plots[i].name.empty() || !stem_chars_only(plots[i].name))
      throw std::invalid_argument(where + "name expected to match [a-z0-9_-]+ (the SVG file stem)");
    if (!names.insert(plots[i].name).second)
      throw std::invalid_argument(where + "name used by an earlier plot, expected unique names");
    if (!has_point(plots[i]))
      throw std::invalid_argument(where + "no curve with points, expected at least one (x, y)");
  }
}

// The first directory of PATH holding an executable `program`; empty entries (the current
// directory to a shell) are skipped.
std::optional<fs::path> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  const std::string_view dirs = path;
  for (std::size_t begin = 0; begin < dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', begin), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(begin, end - begin)) / program;
    std::error_code ignored;
    if (end > begin && fs::is_regular_file(candidate, ignored) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    begin = end + 1;
  }
  return std::nullopt;
}

// A fresh folder under the system temporary folder, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string name = (fs::temp_directory_path() / "scaletune-plots-XXXXXX").string();
    if (::mkdtemp(name.data()) == nullptr)
      throw std::runtime_error(name +
                               ": cannot create a temporary folder: " + std::strerror(errno));
    m_path = name;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(m_path, ignored);
  }

  /// The folder's path.
  const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
};

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) throw std::runtime_error(path.string() + ": cannot write the gnuplot script");
}

// The last non-blank line of the file, where gnuplot puts its error message (before it come the
// echoed command and a caret), as one line of at most kMaxMessageChars characters.
std::string last_message_line(const fs::path& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  std::replace_if(
      last.begin(), last.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }, ' ');
  return last.substr(0, kMaxMessageChars);
}

// `time_limit` in seconds as short text: "60", "0.25".
std::string seconds_text(std::chrono::milliseconds time_limit) {
  std::array<char, 32> text{};
  std::snprintf(text.data(), text.size(), "%g", std::chrono::duration<double>(time_limit).count());
  return text.data();
}

// Waits for the child `pid` (the program `program`) to end and stores its wait status in
// `status`; past `time_limit` kills it (SIGKILL) and reaps it. Returns an empty string when it
// ended by itself, else what went wrong.
std::string wait_within(pid_t pid, const std::string& program, std::chrono::milliseconds time_limit,
                        int& status) {
  const auto deadline = std::chrono::steady_clock::now() + time_limit;
  for (;;) {
    const pid_t ended = ::waitpid(pid, &status, WNOHANG);
    if (ended == pid) return {};
    if (ended < 0 && errno != EINTR)
      return "lost track of " + program + ": " + std::strerror(errno);
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) continue;
      return "gnuplot ran longer than " + seconds_text(time_limit) + " s and was stopped";
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

// Runs `gnuplot script` with stdin and stdout on /dev/null and stderr into `stderr_path`, for at
// most `time_limit`. Returns an empty string on exit status 0, else what went wrong.
std::string run_gnuplot(const fs::path& gnuplot, const fs::path& script,
                        const fs::path& stderr_path, std::chrono::milliseconds time_limit) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::string program = gnuplot.string(), argument = script.string();
  char* argv[] = {program.data(), argument.data(), nullptr};
  pid_t pid = 0;
  const int spawn_error = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) return "cannot start " + program + ": " + std::strerror(spawn_error);
  int status = 0;
  if (std::string failure = wait_within(pid, program, time_limit, status); !failure.empty())
    return failure;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  const std::string how = WIFEXITED(status)
                              ? "gnuplot exited with status " + std::to_string(WEXITSTATUS(status))
                              : "gnuplot was killed by signal " + std::to_string(WTERMSIG(status));
  const std::string message = last_message_line(stderr_path);
  return message.empty() ? how : how + ": " + message;
}

// Whether the SVG file `path` ends with its closing tag: gnuplot exits 0 when the disk fills
// while it writes, and leaves the file cut short.
bool svg_complete(const fs::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  if (!in || size <= 0) return false;
  const std::streamoff tail = std::min<std::streamoff>(size, 64);
  std::string end(static_cast<std::size_t>(tail), '\0');
  in.seekg(size - tail);
  in.read(end.data(), tail);
  return in && end.find("</svg>") != std::string::npos;
}

// Draws one plot into `svg` through a hidden partial file beside it. Returns an empty string
// when `svg` was written, else why not.
std::string render_one(const Plot& plot, const fs::path& gnuplot, const fs::path& svg,
                       const TempDir& temp, std::chrono::milliseconds time_limit) {
  if (detail::drawable_curves(plot).empty()) return detail::nothing_to_draw(plot);
  const fs::path partial = svg.parent_path() / ("." + svg.filename().string() + "." +
                                                std::to_string(::getpid()) + ".partial");
  const fs::path script = temp.path() / (plot.name + ".gp");
  write_text(script, gnuplot_script(plot, partial));
  std::string failure =
      run_gnuplot(gnuplot, script, temp.path() / (plot.name + ".stderr"), time_limit);
  std::error_code ec;
  if (failure.empty() && !fs::is_regular_file(partial, ec)) failure = "gnuplot wrote no file";
  if (failure.empty() && !svg_complete(partial))
    failure = "gnuplot's SVG was cut short (it ends before </svg>; is the disk full?)";
  if (!failure.empty()) {
    fs::remove(partial, ec);
    return failure;
  }
  fs::rename(partial, svg, ec);
  if (ec) {
    const std::string reason = ec.message();
    fs::remove(partial, ec);
    throw std::runtime_error(svg.string() +
                             ": cannot rename the finished plot into place: " + reason);
  }
  return {};
}

void create_folder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw std::runtime_error(dir.string() + ": cannot create the plot folder" +
                             (ec ? ": " + ec.message() : ": a file of that name exists"));
}

}  // namespace

PlotOutcome render_plots(std::span<const Plot> plots, const std::filesystem::path& dir,
                         const std::string& prefix, std::chrono::milliseconds time_limit) {
  check_plots(plots, prefix);
  PlotOutcome outcome;
  if (plots.empty()) return outcome;
  const std::optional<fs::path> gnuplot = find_on_path("gnuplot");
  if (!gnuplot) {
    outcome.notice = "plots skipped: gnuplot not found on PATH (Debian package gnuplot-nox)";
    return outcome;
  }
  create_folder(dir);
  const TempDir temp;
  std::string failures;
  for (const Plot& plot : plots) {
    const fs::path svg = dir / (prefix + plot.name + ".svg");
    const std::string failure = render_one(plot, *gnuplot, svg, temp, time_limit);
    if (failure.empty())
      outcome.files.push_back(svg);
    else
      failures += (failures.empty() ? "" : "; ") + plot.name + " (" + failure + ")";
  }
  if (!failures.empty()) outcome.notice = "plots not written: " + failures;
  return outcome;
}

}  // namespace scaletune::autotune
