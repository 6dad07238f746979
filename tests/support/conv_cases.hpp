#pragma once
// Convolution cases shared by the host and the device convolution tests.

#include <ostream>

#include "kernels/host/conv2d.hpp"

namespace scaletune::kernels::testing_support {

/// One parameterised convolution case: its geometry and batch size.
struct Case {
  const char* name;
  ConvGeometry g;
  int batch;
};

/// Names the case in test listings and failure messages (instead of its bytes).
inline void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

/// A geometry: c input channels, k output channels, square kernel, stride, pad, input h x w.
inline ConvGeometry geometry(int c, int k, int kernel, int stride, int pad, int h, int w) {
  ConvGeometry g;
  g.in_channels = c;
  g.out_channels = k;
  g.kernel = kernel;
  g.stride = stride;
  g.pad = pad;
  g.in_h = h;
  g.in_w = w;
  return g;
}

}  // namespace scaletune::kernels::testing_support
