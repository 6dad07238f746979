// Report plots: the gnuplot script text (quoting by gnuplot's rules for single-quoted strings,
// dropped points and curves, distinct styles) and render_plots() with the real gnuplot, without
// one on PATH, with a fake one that fails after writing half a file and with one that hangs.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "autotune/plots.hpp"
#include "tests/support/scoped_env.hpp"

using scaletune::testing_support::ScopedEnv;
namespace at = scaletune::autotune;
namespace fs = std::filesystem;
using Style = at::Curve::Style;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
const fs::path kSystemGnuplot = "/usr/bin/gnuplot";
// The legend text of each curve in the plot command.
const std::string kCurveTitle = R"(using 1:2 [^\n]* title '([^']*)')";

// A fresh temporary folder, removed with its contents on scope exit.
class TempFolder {
 public:
  TempFolder() {
    std::string name = (fs::temp_directory_path() / "test-plots-XXXXXX").string();
    if (::mkdtemp(name.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + name);
    m_path = name;
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  ~TempFolder() { fs::remove_all(m_path); }
  const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> names;
  if (!fs::exists(dir)) return names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

// The datablock gnuplot reads for curve k: "$c<k> << EOD", one "x y" line per point, "EOD".
std::string datablock(int k, const std::vector<std::string>& lines) {
  std::string text = "$c" + std::to_string(k) + " << EOD\n";
  for (const std::string& line : lines) text += line + "\n";
  return text + "EOD\n";
}

// Every match of `pattern`'s first group in `text`, in order.
std::vector<std::string> captures(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern);
  std::vector<std::string> found;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    found.push_back((*it)[1]);
  return found;
}

at::Plot throughput_plot() {
  at::Plot plot;
  plot.name = "throughput";
  plot.title = R"(Throughput "per_device" \ it's x^2)";
  plot.x_label = "devices";
  plot.y_label = "throughput (samples/s)";
  plot.curves = {{"measured_ok", {{1, 100}, {2, kNaN}, {4, 350.5}}, Style::points},
                 {"Amdahl fit", {{1, 95}, {kInf, 3}, {8, 700}}, Style::line}};
  return plot;
}

at::Plot pareto_plot() {
  at::Plot plot;
  plot.name = "pareto";
  plot.title = "Pareto front";
  plot.x_label = "time to train (s)";
  plot.y_label = "device-minutes";
  plot.log_x = true;
  plot.log_y = true;
  plot.curves = {{"configurations", {{10, 8}, {20, 5}, {40, 4}, {30, 9}}, Style::points},
                 {"front", {{10, 8}, {20, 5}, {40, 4}}, Style::linespoints}};
  return plot;
}

// A gnuplot stand-in: writes the start of an SVG where the script's "set output" points; with
// `fails`, says why it fails on stderr after a blank line (as gnuplot does) and exits with
// status 1, else exits with status 0 (as gnuplot does when the disk fills while it writes).
void write_failing_gnuplot(const fs::path& bin, bool fails = true) {
  const fs::path program = bin / "gnuplot";
  std::ofstream(program)
      << "#!/bin/sh\n"
         "PATH=/usr/bin:/bin\n"
         "out=$(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$1\")\n"
         "printf '<svg partial' > \"$out\"\n"
      << (fails ? "printf '\\nplot $c0\\n     ^\\nline 12: fake failure\\n\\n' >&2\n"
                  "exit 1\n"
                : "exit 0\n");
  fs::permissions(program, fs::perms::owner_all);
}

// A gnuplot stand-in that hangs: writes its process id (kept by exec) to `pid_file` and the
// start of an SVG where the script's "set output" points, then sleeps for 1000 s.
void write_hanging_gnuplot(const fs::path& bin, const fs::path& pid_file) {
  const fs::path program = bin / "gnuplot";
  std::ofstream(program) << "#!/bin/sh\n"
                            "PATH=/usr/bin:/bin\n"
                            "echo $$ >> '"
                         << pid_file.string()
                         << "'\n"
                            "out=$(sed -n \"s/^set output '\\(.*\\)'$/\\1/p\" \"$1\")\n"
                            "printf '<svg partial' > \"$out\"\n"
                            "exec sleep 1000\n";
  fs::permissions(program, fs::perms::owner_all);
}

// The process ids in `path`, one a line.
std::vector<pid_t> pids_in(const fs::path& path) {
  std::ifstream in(path);
  return {std::istream_iterator<pid_t>(in), std::istream_iterator<pid_t>()};
}

}  // namespace

TEST(GnuplotScript, TerminalOutputLabelsAndData) {
  const std::string script = at::gnuplot_script(throughput_plot(), "/tmp/out/throughput.svg");
  EXPECT_EQ(script.rfind("set terminal svg size 800,500 ", 0), 0u) << script;
  // Text is verbatim: no enhanced-text markup on the terminal.
  EXPECT_NE(script.find(" noenhanced "), std::string::npos);
  EXPECT_EQ(script.find(" enhanced"), std::string::npos);
  EXPECT_NE(script.find("\nset output '/tmp/out/throughput.svg'\n"), std::string::npos);
  // Single-quoted gnuplot strings process no escapes; '' is one quote (gnuplot 5.4, "Strings").
  EXPECT_NE(script.find("\nset title 'Throughput \"per_device\" \\ it''s x^2'\n"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("\nset xlabel 'devices'\n"), std::string::npos);
  EXPECT_NE(script.find("\nset ylabel 'throughput (samples/s)'\n"), std::string::npos);
  EXPECT_NE(script.find("\nset grid\n"), std::string::npos);
  EXPECT_NE(script.find("\nset key "), std::string::npos);
  EXPECT_EQ(script.find("logscale"), std::string::npos);
  // The NaN and infinite points are left out.
  EXPECT_NE(script.find("\n" + datablock(0, {"1 100", "4 350.5"})), std::string::npos) << script;
  EXPECT_NE(script.find("\n" + datablock(1, {"1 95", "8 700"})), std::string::npos) << script;
  EXPECT_EQ(captures(script, R"(\$c0 using 1:2 with (\w+) )"), std::vector<std::string>{"points"});
  EXPECT_EQ(captures(script, R"(\$c1 using 1:2 with (\w+) )"), std::vector<std::string>{"lines"});
  EXPECT_EQ(captures(script, kCurveTitle), (std::vector<std::string>{"measured_ok", "Amdahl fit"}));
  const std::size_t plot_at = script.find("\nplot ");
  EXPECT_GT(plot_at, script.find("\nEOD\n", script.find("$c1 << EOD")));
  EXPECT_TRUE(script.ends_with("\nunset output\n"));
}

TEST(GnuplotScript, LogAxesDropNonPositivePoints) {
  at::Plot plot;
  plot.name = "log";
  plot.log_y = true;
  plot.curves = {{"a", {{1, 10}, {2, 0}, {3, -1}, {0, 5}, {-2, 6}, {4, 1e-3}}, Style::points}};
  std::string script = at::gnuplot_script(plot, "log.svg");
  EXPECT_NE(script.find("\nset logscale y 10\n"), std::string::npos);
  EXPECT_EQ(script.find("set logscale x"), std::string::npos);
  EXPECT_NE(script.find("\n" + datablock(0, {"1 10", "0 5", "-2 6", "4 0.001"})), std::string::npos)
      << script;

  plot.log_x = true;
  script = at::gnuplot_script(plot, "log.svg");
  EXPECT_NE(script.find("\nset logscale x 10\n"), std::string::npos);
  EXPECT_NE(script.find("\n" + datablock(0, {"1 10", "4 0.001"})), std::string::npos) << script;
}

TEST(GnuplotScript, CurvesWithoutPointsLeftAreDropped) {
  at::Plot plot;
  plot.name = "drop";
  plot.log_x = true;
  plot.curves = {{"gone", {{kNaN, 1}, {0, 2}}, Style::line},
                 {"empty", {}, Style::line},
                 {"kept", {{2, 3}}, Style::points}};
  const std::string script = at::gnuplot_script(plot, "drop.svg");
  EXPECT_NE(script.find("\n" + datablock(0, {"2 3"})), std::string::npos) << script;
  EXPECT_EQ(script.find("$c1"), std::string::npos);
  EXPECT_EQ(captures(script, kCurveTitle), std::vector<std::string>{"kept"});

  plot.curves.pop_back();
  EXPECT_THROW(at::gnuplot_script(plot, "drop.svg"), std::invalid_argument);
}

TEST(GnuplotScript, ControlCharactersInTextBecomeSpacesAndRejectedInPath) {
  at::Plot plot;
  plot.name = "ctl";
  plot.title = "two\nlines\tand tab";
  plot.curves = {{"a\rb", {{1, 1}}, Style::points}};
  const std::string script = at::gnuplot_script(plot, "ctl.svg");
  EXPECT_NE(script.find("\nset title 'two lines and tab'\n"), std::string::npos) << script;
  EXPECT_NE(script.find(" title 'a b'\n"), std::string::npos) << script;
  EXPECT_THROW(at::gnuplot_script(plot, "bad\nname.svg"), std::invalid_argument);
}

TEST(GnuplotScript, EveryCurveGetsItsOwnColourAndPointType) {
  at::Plot plot;
  plot.name = "many";
  for (int k = 0; k < 64; ++k)
    plot.curves.push_back({"series " + std::to_string(k), {{1.0 * k, 1.0}}, Style::linespoints});
  const std::string script = at::gnuplot_script(plot, "many.svg");
  const auto colours = captures(script, R"(lc rgb '(#[0-9A-Fa-f]{6})')");
  const auto point_types = captures(script, R"( pt (\d+))");
  ASSERT_EQ(colours.size(), 64u);
  ASSERT_EQ(point_types.size(), 64u);
  EXPECT_EQ(std::set<std::string>(colours.begin(), colours.begin() + 8).size(), 8u);
  std::set<std::pair<std::string, std::string>> pairs;
  for (std::size_t k = 0; k < colours.size(); ++k) pairs.insert({colours[k], point_types[k]});
  EXPECT_EQ(pairs.size(), 64u);
}

TEST(GnuplotScript, CurvesOfOneGroupShareTheirLookAndAnEmptyLabelHasNoKeyEntry) {
  at::Plot plot;
  plot.name = "groups";
  plot.curves = {{"a", {{1, 1}}, Style::points, 0},
                 {"", {{1, 1}, {2, 2}}, Style::line, 0},
                 {"b", {{1, 2}}, Style::points, 1},
                 {"", {{1, 2}, {2, 3}}, Style::line, 1}};
  const std::string script = at::gnuplot_script(plot, "groups.svg");
  const auto colours = captures(script, R"(lc rgb '(#[0-9A-Fa-f]{6})')");
  ASSERT_EQ(colours.size(), 4u);
  EXPECT_EQ(colours[0], colours[1]);
  EXPECT_EQ(colours[2], colours[3]);
  EXPECT_NE(colours[0], colours[2]);
  EXPECT_EQ(captures(script, R"((notitle))").size(), 2u);
  EXPECT_EQ(captures(script, R"(title '([ab])')").size(), 2u);
}

TEST(RenderPlots, BadPlotsThrowBeforeAnythingRuns) {
  const TempFolder temp;
  const ScopedEnv path("PATH", temp.path().string());
  const fs::path dir = temp.path() / "out";
  auto expect_invalid = [&](std::vector<at::Plot> plots, const std::string& prefix,
                            const std::string& named) {
    try {
      at::render_plots(plots, dir, prefix);
      ADD_FAILURE() << "no exception for " << named;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
    }
  };
  at::Plot bad_name = pareto_plot();
  bad_name.name = "Pareto Front";
  expect_invalid({bad_name}, "", "'Pareto Front'");
  bad_name.name = "";
  expect_invalid({bad_name}, "", "[a-z0-9_-]+");
  expect_invalid({pareto_plot(), pareto_plot()}, "", "unique");
  at::Plot no_curves = pareto_plot();
  no_curves.curves.clear();
  expect_invalid({no_curves}, "", "'pareto'");
  at::Plot no_points = pareto_plot();
  for (at::Curve& curve : no_points.curves) curve.points.clear();
  expect_invalid({no_points}, "", "no curve with points");
  expect_invalid({pareto_plot()}, "../", "prefix '../'");
  EXPECT_FALSE(fs::exists(dir));
}

TEST(RenderPlots, WritesOneSvgPerPlotWithTitleAndLegend) {
  if (!fs::exists(kSystemGnuplot)) GTEST_SKIP() << kSystemGnuplot << " is not installed";
  const TempFolder temp;
  const ScopedEnv path("PATH", kSystemGnuplot.parent_path().string());
  const ScopedEnv tmpdir("TMPDIR", temp.path().string());
  const fs::path dir = temp.path() / "report" / "plots";
  const std::vector<at::Plot> plots = {throughput_plot(), pareto_plot()};

  const at::PlotOutcome outcome = at::render_plots(plots, dir, "run1-");

  EXPECT_EQ(outcome.notice, "");
  ASSERT_EQ(outcome.files,
            (std::vector<fs::path>{dir / "run1-throughput.svg", dir / "run1-pareto.svg"}));
  for (std::size_t i = 0; i < plots.size(); ++i) {
    const std::string svg = read_text(outcome.files[i]);
    EXPECT_NE(svg.find("<svg"), std::string::npos) << outcome.files[i];
    EXPECT_NE(svg.find("</svg>"), std::string::npos) << outcome.files[i];
    for (const at::Curve& curve : plots[i].curves)
      EXPECT_NE(svg.find(">" + curve.label + "<"), std::string::npos) << curve.label;
    EXPECT_NE(svg.find(">" + plots[i].x_label + "<"), std::string::npos);
  }
  // Verbatim title: '_' and '^' are not markup, the quotes and backslash are kept.
  EXPECT_NE(read_text(outcome.files[0]).find(">" + plots[0].title + "<"), std::string::npos);
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"run1-throughput.svg", "run1-pareto.svg"}));
  EXPECT_EQ(names_in(temp.path()), std::set<std::string>{"report"});  // no temporary folder left
}

TEST(RenderPlots, PlotWithNothingToDrawIsNamedInTheNotice) {
  if (!fs::exists(kSystemGnuplot)) GTEST_SKIP() << kSystemGnuplot << " is not installed";
  const TempFolder temp;
  const ScopedEnv path("PATH", kSystemGnuplot.parent_path().string());
  at::Plot nothing = pareto_plot();
  nothing.name = "efficiency";
  nothing.curves = {{"zeros", {{0, 1}, {2, -1}}, Style::points}};
  const std::vector<at::Plot> plots = {nothing, pareto_plot()};

  const at::PlotOutcome outcome = at::render_plots(plots, temp.path(), "");

  EXPECT_EQ(outcome.files, std::vector<fs::path>{temp.path() / "pareto.svg"});
  EXPECT_NE(outcome.notice.find("efficiency (no point left to draw"), std::string::npos)
      << outcome.notice;
  EXPECT_EQ(outcome.notice.find("pareto"), std::string::npos) << outcome.notice;
  EXPECT_EQ(outcome.notice.find('\n'), std::string::npos);
  EXPECT_EQ(names_in(temp.path()), std::set<std::string>{"pareto.svg"});
}

TEST(RenderPlots, NoGnuplotOnPathGivesOneLineNoticeAndNoFiles) {
  const TempFolder temp;
  const fs::path empty_bin = temp.path() / "bin";
  fs::create_directory(empty_bin);
  const fs::path dir = temp.path() / "out";
  const std::vector<at::Plot> plots = {throughput_plot(), pareto_plot()};
  for (const std::optional<std::string>& path_value :
       {std::optional<std::string>(empty_bin.string()), std::optional<std::string>(""),
        std::optional<std::string>(":" + empty_bin.string() + ":"), std::optional<std::string>()}) {
    const ScopedEnv path("PATH", path_value);
    at::PlotOutcome outcome;
    ASSERT_NO_THROW(outcome = at::render_plots(plots, dir, ""));
    EXPECT_TRUE(outcome.files.empty());
    EXPECT_NE(outcome.notice.find("gnuplot not found on PATH"), std::string::npos)
        << outcome.notice;
    EXPECT_EQ(outcome.notice.find('\n'), std::string::npos);
    EXPECT_TRUE(names_in(dir).empty());
  }
}

// Renders the throughput plot with write_failing_gnuplot(bin, fails) over an earlier plot:
// expects it intact, the notice `notice`, and no half file or temporary folder left.
void expect_no_half_file(bool fails, const std::string& notice) {
  const TempFolder temp;
  const fs::path bin = temp.path() / "bin";
  fs::create_directory(bin);
  write_failing_gnuplot(bin, fails);
  const ScopedEnv path("PATH", bin.string());
  fs::create_directory(temp.path() / "tmp");
  const ScopedEnv tmpdir("TMPDIR", (temp.path() / "tmp").string());
  const fs::path dir = temp.path() / "out";
  const fs::path earlier = dir / "throughput.svg";  // from an earlier run: must survive intact
  fs::create_directory(dir);
  std::ofstream(earlier) << "<svg>earlier</svg>\n";
  const std::vector<at::Plot> plots = {throughput_plot()};

  at::PlotOutcome outcome;
  ASSERT_NO_THROW(outcome = at::render_plots(plots, dir, ""));

  EXPECT_TRUE(outcome.files.empty());
  EXPECT_EQ(read_text(earlier), "<svg>earlier</svg>\n");
  EXPECT_EQ(outcome.notice, notice);
  EXPECT_EQ(names_in(dir), std::set<std::string>{"throughput.svg"});
  EXPECT_EQ(names_in(temp.path() / "tmp"), std::set<std::string>{});  // no temporary folder left
}

TEST(RenderPlots, FailingGnuplotLeavesNoHalfFile) {
  expect_no_half_file(
      true, "plots not written: throughput (gnuplot exited with status 1: line 12: fake failure)");
}

TEST(RenderPlots, AnSvgCutShortIsNotAPlotThoughGnuplotExitedZero) {
  expect_no_half_file(false,
                      "plots not written: throughput (gnuplot's SVG was cut short (it ends before "
                      "</svg>; is the disk full?))");
}

TEST(RenderPlots, HangingGnuplotIsKilledAtTheTimeLimitAndNamedInTheNotice) {
  const TempFolder temp;
  const fs::path bin = temp.path() / "bin";
  fs::create_directory(bin);
  const fs::path pid_file = temp.path() / "gnuplot.pids";
  write_hanging_gnuplot(bin, pid_file);
  const ScopedEnv path("PATH", bin.string());
  const fs::path dir = temp.path() / "out";
  const std::vector<at::Plot> plots = {throughput_plot(), pareto_plot()};

  at::PlotOutcome outcome;
  ASSERT_NO_THROW(outcome = at::render_plots(plots, dir, "", std::chrono::milliseconds(250)));

  EXPECT_TRUE(outcome.files.empty());
  EXPECT_EQ(outcome.notice,
            "plots not written: throughput (gnuplot ran longer than 0.25 s and was stopped); "
            "pareto (gnuplot ran longer than 0.25 s and was stopped)");
  EXPECT_EQ(names_in(dir), std::set<std::string>{});  // the partial files are gone
  const std::vector<pid_t> pids = pids_in(pid_file);
  ASSERT_EQ(pids.size(), 2u);  // one run per plot, one after the other
  for (const pid_t pid : pids) {
    // Killed and reaped: no such process any more (not even a zombie).
    EXPECT_EQ(::kill(pid, 0), -1) << pid;
    EXPECT_EQ(errno, ESRCH) << pid;
  }
}

TEST(RenderPlots, UncreatableFolderThrowsNamingIt) {
  const TempFolder temp;
  const fs::path bin = temp.path() / "bin";
  fs::create_directory(bin);
  write_failing_gnuplot(bin);
  const ScopedEnv path("PATH", bin.string());
  const fs::path file = temp.path() / "report.md";
  std::ofstream(file) << "# report\n";
  const std::vector<at::Plot> plots = {pareto_plot()};
  try {
    at::render_plots(plots, file / "plots", "");
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find((file / "plots").string()), std::string::npos) << e.what();
  }
}
