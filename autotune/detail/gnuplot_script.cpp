#include "autotune/detail/gnuplot_script.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string_view>

namespace scaletune::autotune {

namespace {

// Okabe & Ito (2008), "Color Universal Design": eight colours told apart with any colour vision.
constexpr std::array<std::string_view, 8> kColours = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                      "#E69F00", "#56B4E9", "#000000", "#F0E442"};
// gnuplot point types: filled circle, square, triangle, inverted triangle, diamond; then open
// square, circle, triangle.
constexpr std::array<int, 8> kPointTypes = {7, 5, 9, 11, 13, 4, 6, 8};

bool is_control(char c) {
  return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
}

// A gnuplot single-quoted string: nothing is escaped inside one, '' stands for a quote
// (gnuplot 5.4 manual, "Strings"). A control character would end the command: it becomes a space.
std::string gnuplot_string(std::string_view text) {
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'')
      out += "''";
    else
      out += is_control(c) ? ' ' : c;
  }
  return out + "'";
}

// Shortest text that reads back as the same double.
std::string number(double x) {
  std::array<char, 32> text{};
  char* end = std::to_chars(text.data(), text.data() + text.size(), x).ptr;
  return std::string(text.data(), end);
}

bool drawable(double v, bool log_axis) {
  return std::isfinite(v) && (!log_axis || v > 0.0);
}

// Colour and point type of curve (or group) k: they advance together, and the point type shifts by
// one more every round of colours, so (colour, point type) pairs differ for the first 64 curves.
std::string with_clause(Curve::Style style, std::size_t k) {
  const std::string colour = " lc rgb '" + std::string(kColours[k % kColours.size()]) + "'";
  const std::string point =
      " pt " + std::to_string(kPointTypes[(k + k / kColours.size()) % kPointTypes.size()]);
  switch (style) {
    case Curve::Style::points:
      return "with points" + point + colour;
    case Curve::Style::line:
      return "with lines lw 2" + colour;
    case Curve::Style::linespoints:
      return "with linespoints lw 2" + point + colour;
  }
  throw std::invalid_argument("gnuplot_script: unknown curve style");
}

std::string datablock(const Curve& curve, std::size_t k) {
  std::string text = "$c" + std::to_string(k) + " << EOD\n";
  for (const auto& [x, y] : curve.points) text += number(x) + " " + number(y) + "\n";
  return text + "EOD\n";
}

std::string plot_command(const std::vector<Curve>& curves) {
  std::string text = "plot ";
  for (std::size_t k = 0; k < curves.size(); ++k) {
    if (k > 0) text += ", \\\n     ";
    const std::size_t look = curves[k].group >= 0 ? static_cast<std::size_t>(curves[k].group) : k;
    text += "$c" + std::to_string(k) + " using 1:2 " + with_clause(curves[k].style, look) +
            (curves[k].label.empty() ? " notitle" : " title " + gnuplot_string(curves[k].label));
  }
  return text + "\n";
}

std::string axes(const Plot& plot) {
  std::string text = "set title " + gnuplot_string(plot.title) + "\nset xlabel " +
                     gnuplot_string(plot.x_label) + "\nset ylabel " + gnuplot_string(plot.y_label) +
                     "\nset grid\nset key below\n";
  if (plot.log_x) text += "set logscale x 10\n";
  if (plot.log_y) text += "set logscale y 10\n";
  return text;
}

}  // namespace

namespace detail {

std::vector<Curve> drawable_curves(const Plot& plot) {
  std::vector<Curve> curves;
  for (const Curve& curve : plot.curves) {
    Curve kept{curve.label, {}, curve.style, curve.group};
    std::copy_if(curve.points.begin(), curve.points.end(), std::back_inserter(kept.points),
                 [&](const std::pair<double, double>& p) {
                   return drawable(p.first, plot.log_x) && drawable(p.second, plot.log_y);
                 });
    if (!kept.points.empty()) curves.push_back(std::move(kept));
  }
  return curves;
}

std::string nothing_to_draw(const Plot& plot) {
  return std::string("no point left to draw: x and y must be finite") +
         (plot.log_x || plot.log_y ? ", and positive on a log axis" : "");
}

}  // namespace detail

std::string gnuplot_script(const Plot& plot, const std::filesystem::path& svg_path) {
  const std::string path = svg_path.string();
  if (std::any_of(path.begin(), path.end(), is_control))
    throw std::invalid_argument("gnuplot_script: output path '" + path +
                                "' holds a control character, expected a plain path");
  const std::vector<Curve> curves = detail::drawable_curves(plot);
  if (curves.empty())
    throw std::invalid_argument("plot '" + plot.name + "': " + detail::nothing_to_draw(plot));
  std::string script =
      "set terminal svg size 800,500 dynamic noenhanced font 'sans,11' background '#ffffff'\n"
      "set output " +
      gnuplot_string(path) + "\n" + axes(plot);
  for (std::size_t k = 0; k < curves.size(); ++k) script += datablock(curves[k], k);
  return script + plot_command(curves) + "unset output\n";
}

}  // namespace scaletune::autotune
