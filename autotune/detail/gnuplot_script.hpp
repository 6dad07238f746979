#pragma once
// The parts of a gnuplot script that render_plots() needs apart from the script itself.

#include <string>
#include <vector>

#include "autotune/plots.hpp"

namespace scaletune::autotune::detail {

/// The curves of `plot` as gnuplot_script() draws them: points with a non-finite coordinate, or
/// a non-positive one on a log axis, removed, then curves without points removed; order kept.
std::vector<Curve> drawable_curves(const Plot& plot);

/// Why `plot` has nothing to draw when drawable_curves() is empty, e.g. "no point left to draw:
/// x and y must be finite, and positive on a log axis".
std::string nothing_to_draw(const Plot& plot);

}  // namespace scaletune::autotune::detail
