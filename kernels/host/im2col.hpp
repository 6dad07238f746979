#pragma once
// The im2col lowering of one image and its adjoint, col2im (Chellapilla et al. 2006), in
// Caffe's layout: col[(c*R + r)*S + s, oh*Wo + ow] = x[c, oh*stride - pad + r,
// ow*stride - pad + s], or 0 where that pixel lies in the zero padding.

#include "kernels/host/conv2d.hpp"

namespace scaletune::kernels {

/// col[C*R*S, Ho*Wo] (row-major, overwritten) from image[C, H, W] (row-major), with
/// C, H, W, R = S, stride, pad, Ho, Wo from g. Pointers must hold g.in_channels*in_h*in_w and
/// g.col_rows()*g.col_cols() floats; g must be valid (Conv2d checks it). No allocation.
void im2col(const ConvGeometry& g, const float* image, float* col);

/// image[C, H, W] (overwritten) = the adjoint of im2col applied to col[C*R*S, Ho*Wo]: every
/// column entry is added onto the input pixel it was copied from; entries that came from the
/// padding are dropped. col is scratch: those padding entries may be overwritten with zeros
/// (the stride-1 "same" path then accumulates whole rows contiguously). Shapes and
/// preconditions as for im2col.
void col2im(const ConvGeometry& g, float* col, float* image);

}  // namespace scaletune::kernels
