// Gradient rules of the windowed ops (docs/frontend.md "Convolution and pooling"): a
// convolution's adjoints are convolutions, a max (min) pool's is a select_and_scatter, a
// sum pool's is a pad and a sum pool, a select_and_scatter's a replay of its selection.
// Used by autodiff.cc's Vjp.
#ifndef SEAM_LAZY_AUTODIFF_WINDOW_H_
#define SEAM_LAZY_AUTODIFF_WINDOW_H_

#include <cstddef>

#include "src/lazy/lazy_tensor.h"

namespace seam::lazy {

// Operand i (0: the input, 1: the kernel) of a convolution whose dimension numbers are
// batch, feature, spatial... in order for the input and the result and output feature,
// input feature, spatial... for the kernel (what nn::conv2d records), without lhs
// dilation; other convolutions throw, naming what the rule does not cover.
NodePtr ConvolutionVjp(const Node& node, size_t i, const NodePtr& g);

// reduce_window_max, reduce_window_min and reduce_window_sum without dilations; others
// throw. Ties in a max or min window go to the first extreme in row-major order.
NodePtr ReduceWindowVjp(const Node& node, const NodePtr& g);
// select_and_scatter: operand 1 (the source) gets g at each window's selected element (0
// for a window entirely in padding); operand 0, which only selects, gets zeros (as JAX).
NodePtr SelectAndScatterVjp(const Node& node, size_t i, const NodePtr& g);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_AUTODIFF_WINDOW_H_
