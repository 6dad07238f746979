#include "kernels/ops/conv_geometry.hpp"

#include <stdexcept>
#include <string>

namespace scaletune::ops {
namespace {

void require_positive(const char* key, int value) {
  if (value < 1) {
    throw std::invalid_argument("ConvGeometry: " + std::string(key) + " = " +
                                std::to_string(value) + ", expected >= 1");
  }
}

}  // namespace

int ConvGeometry::out_h() const {
  return (in_h + 2 * pad - kernel) / stride + 1;
}

int ConvGeometry::out_w() const {
  return (in_w + 2 * pad - kernel) / stride + 1;
}

double ConvGeometry::macs_per_sample() const {
  return static_cast<double>(out_channels) * out_h() * out_w() * in_channels * kernel * kernel;
}

std::size_t ConvGeometry::weight_count() const {
  return static_cast<std::size_t>(out_channels) * in_channels * kernel * kernel;
}

std::size_t ConvGeometry::col_rows() const {
  return static_cast<std::size_t>(in_channels) * kernel * kernel;
}

std::size_t ConvGeometry::col_cols() const {
  return static_cast<std::size_t>(out_h()) * out_w();
}

void validate(const ConvGeometry& g) {
  require_positive("in_channels", g.in_channels);
  require_positive("out_channels", g.out_channels);
  require_positive("kernel", g.kernel);
  require_positive("stride", g.stride);
  require_positive("in_h", g.in_h);
  require_positive("in_w", g.in_w);
  if (g.pad < 0) {
    throw std::invalid_argument("ConvGeometry: pad = " + std::to_string(g.pad) + ", expected >= 0");
  }
  if (g.in_h + 2 * g.pad < g.kernel || g.in_w + 2 * g.pad < g.kernel) {
    throw std::invalid_argument("ConvGeometry: input " + std::to_string(g.in_h) + "x" +
                                std::to_string(g.in_w) + " with pad " + std::to_string(g.pad) +
                                " is smaller than the kernel " + std::to_string(g.kernel) +
                                ", expected in_h + 2*pad >= kernel and in_w + 2*pad >= " +
                                "kernel (an output of at least 1x1)");
  }
}

}  // namespace scaletune::ops
