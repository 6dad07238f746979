#pragma once
// Plots for the autotune report, rendered to SVG by gnuplot: a generic layer of named plots made
// of data series; which plots a report holds is decided where the metrics are.

#include <chrono>
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace scaletune::autotune {

/// One data series of a plot: markers (measured points), a line (a fitted curve, a front) or both.
struct Curve {
  /// How the points are drawn; lines join the points in the order given.
  enum class Style { points, line, linespoints };

  std::string label;                              ///< legend text, verbatim; "": no entry
  std::vector<std::pair<double, double>> points;  ///< (x, y) in the units of the axis labels
  Style style = Style::points;
  /// Curves of one group >= 0 share colour and point type (a series' points and its fitted
  /// curve); -1: the curve's own, by its position. Give every curve of a plot a group, or none.
  int group = -1;
};

/// One plot: axes, labels and series. Text is shown verbatim (no gnuplot markup: '_' and '^'
/// stay themselves).
struct Plot {
  std::string name;     ///< file stem, [a-z0-9_-]+, e.g. "throughput"
  std::string title;    ///< plot title
  std::string x_label;  ///< x axis label with its unit, e.g. "devices"
  std::string y_label;  ///< y axis label with its unit, e.g. "throughput (samples/s)"
  bool log_x = false;   ///< base-10 logarithmic x axis
  bool log_y = false;   ///< base-10 logarithmic y axis
  std::vector<Curve> curves;
};

/// What render_plots() wrote.
struct PlotOutcome {
  std::vector<std::filesystem::path> files;  ///< SVGs written, in the order of the plots
  /// Empty when every plot was written; else one line saying what was not and why, e.g.
  /// "plots skipped: gnuplot not found on PATH (Debian package gnuplot-nox)".
  std::string notice;
};

/// How long one gnuplot run of render_plots() may take before it is stopped: drawing a report
/// plot takes well under a second, so a run this long is hanging (waiting on a display, a
/// broken installation).
inline constexpr std::chrono::seconds kGnuplotTimeLimit{60};

/// Writes `<dir>/<prefix><plot.name>.svg` for each plot (creating `dir`) by running gnuplot,
/// looked up in the directories of PATH (an unset or empty PATH finds none), once per plot with
/// the script of gnuplot_script(). Each SVG is written under a temporary name in `dir` and
/// renamed when gnuplot succeeds, so a file is never left half written. A gnuplot run still
/// going after `time_limit` (tests pass a short one) is killed (SIGKILL) and reaped.
/// Never throws for a missing gnuplot, a gnuplot failure, a gnuplot run past `time_limit` or a
/// plot without a drawable point (see gnuplot_script()): such plots get no file and `notice`
/// names them with the reason (gnuplot's exit status and error message; "gnuplot ran longer
/// than 60 s and was stopped").
/// Throws std::invalid_argument for a name or prefix outside [a-z0-9_-] (the name also empty),
/// two plots with the same name, a plot without curves or without any point, or a `dir` holding
/// a control character;
/// std::runtime_error naming the path when `dir` or a temporary folder cannot be created or a
/// file cannot be renamed.
PlotOutcome render_plots(std::span<const Plot> plots, const std::filesystem::path& dir,
                         const std::string& prefix,
                         std::chrono::milliseconds time_limit = kGnuplotTimeLimit);

/// The gnuplot script that draws `plot` into `svg_path`: an SVG terminal of 800x500 with text
/// taken verbatim (noenhanced), title, axis labels, grid, legend below the axes, log
/// scales, one inline datablock per curve ("$c<k> << EOD", "x y" lines in shortest round-trip
/// form, "EOD"), and one plot command with a distinct colour and point type per curve.
/// Points with a non-finite coordinate, or a non-positive one on a log axis, are left out, and
/// so are curves left without points. Strings are gnuplot single-quoted literals ('' for ');
/// control characters in labels become spaces.
/// Throws std::invalid_argument when no curve has a point left, or when `svg_path` holds a
/// control character.
std::string gnuplot_script(const Plot& plot, const std::filesystem::path& svg_path);

}  // namespace scaletune::autotune
