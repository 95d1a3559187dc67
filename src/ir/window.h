// The geometry of one dimension of a window (convolution, reduce_window_*,
// select_and_scatter; docs/ir.md "Windowed ops"), shared by the shape rules, the reference
// evaluator and the plugins' kernels so that they cannot disagree on which input element
// a window position reads.
#ifndef SEAM_IR_WINDOW_H_
#define SEAM_IR_WINDOW_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"

namespace seam::ir {

// The input is dilated (base_dilation - 1 holes between neighbours), then padded with
// pad_low and pad_high positions (negative: cropped); a window of `size` taps, each
// window_dilation apart, moves over it `stride` positions at a time.
struct WindowDim {
  int64_t size = 1;
  int64_t stride = 1;
  int64_t pad_low = 0;
  int64_t pad_high = 0;
  int64_t base_dilation = 1;
  int64_t window_dilation = 1;
};

// The extent of a dilated sequence of n elements: (n - 1) * dilation + 1, or 0 for n = 0.
// Overflow is the caller's to rule out (the shape rules use __int128).
inline __int128 DilatedExtent(int64_t n, int64_t dilation) {
  return n == 0 ? 0 : static_cast<__int128>(n - 1) * dilation + 1;
}

// The padded, dilated input's extent; may be negative for bad attributes.
inline __int128 PaddedExtent(const WindowDim& w, int64_t input) {
  return DilatedExtent(input, w.base_dilation) + w.pad_low + w.pad_high;
}

// How many window positions fit (XLA's and StableHLO's rule): 0 when the dilated window is
// longer than the padded input, else (padded - window) / stride + 1.
inline __int128 WindowCount(const WindowDim& w, int64_t input) {
  const __int128 padded = PaddedExtent(w, input);
  const __int128 window = DilatedExtent(w.size, w.window_dilation);
  if (padded < window) return 0;
  return (padded - window) / w.stride + 1;
}

// The input element that tap `tap` of window `position` reads, or -1 where it reads
// padding or a dilation hole. Valid attributes keep every product within int64.
inline int64_t WindowSource(const WindowDim& w, int64_t input, int64_t position, int64_t tap) {
  const int64_t p = position * w.stride + tap * w.window_dilation - w.pad_low;
  if (p < 0 || p % w.base_dilation != 0) return -1;
  const int64_t i = p / w.base_dilation;
  return i < input ? i : -1;
}

// A convolution's attributes, read from a verified instruction (window.cc). Dimension
// numbers say which dimension of each operand and of the result plays which role; window
// entry i belongs to spatial dimension i (input_spatial[i], kernel_spatial[i] and
// output_spatial[i]); base_dilation is the lhs dilation, window_dilation the rhs dilation.
struct ConvolutionLayout {
  int64_t input_batch = 0, input_feature = 1;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = 1, kernel_output_feature = 0;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = 0, output_feature = 1;
  std::vector<int64_t> output_spatial;
  int64_t feature_groups = 1;
  std::vector<WindowDim> window;
};
ConvolutionLayout ConvolutionLayoutOf(const Instruction& inst);

// The window of a reduce_window_* (one entry per operand dimension) or of a
// select_and_scatter (dilations 1), read from a verified instruction.
std::vector<WindowDim> WindowOf(const Instruction& inst);

}  // namespace seam::ir

#endif  // SEAM_IR_WINDOW_H_
