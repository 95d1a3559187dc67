// A causal attention step's program for the CPU plugin's tests (the causal products of
// src/plugins/cpu/kernels/attention_causal.h), shared by the kernel's test and the create
// options' test.
#ifndef SEAM_TESTS_UNIT_ATTENTION_PROGRAM_H_
#define SEAM_TESTS_UNIT_ATTENTION_PROGRAM_H_

#include <string>

#include "src/plugins/cpu/compile/executable.h"

namespace seam::cpu::testing {

struct Shape {
  int b, h, l, s, d;
};

enum class Mask {
  kNone,    // plain softmax attention
  kCausal,  // keep j <= i + offset (a prefix per row, growing)
  kSuffix,  // keep j >= i: not a prefix, nothing may be skipped
};

// One attention step's forward and backward in the front end's primitives (the IR that
// scaled_dot_product_attention and autodiff produce), results (out, dq, dk, dv), plus the
// scores themselves when `return_scores` (then they are read outside the mask). With
// `split_heads`, q, k, v and the output's gradient arrive as [b, l (or s), h, d], as a
// model's projections make them, transposes split the heads off, and out, dq, dk and dv
// are returned with their heads merged back ([b, l (or s), h, d]; dk's transposed too).
std::string AttentionProgram(const Shape& x, Mask mask, int offset, bool return_scores = false,
                             bool split_heads = false);

// How many products of the compiled program skip blocks.
int CausalProducts(const Executable& executable);

}  // namespace seam::cpu::testing

#endif  // SEAM_TESTS_UNIT_ATTENTION_PROGRAM_H_
