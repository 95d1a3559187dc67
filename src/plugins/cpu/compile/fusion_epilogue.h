// Epilogues: a fusion group that only applies per-feature arithmetic (a bias, a batch norm in
// evaluation mode), adds a residual tensor and/or takes max(x, 0) of a convolution's f32
// result runs inside the convolution's oneDNN call (a bias operand, a sum and a relu
// post-op; other per-feature arithmetic folded into the weights and the bias), so the result
// is written once, finished, instead of written, read back by the group's loop and written
// again (docs/cpu-plugin.md "Convolution epilogues").
#ifndef SEAM_PLUGINS_CPU_FUSION_EPILOGUE_H_
#define SEAM_PLUGINS_CPU_FUSION_EPILOGUE_H_

#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "src/ir/program.h"
#include "src/plugins/cpu/compile/fusion.h"

namespace seam::cpu {

// The epilogues setting (option `epilogues`, SEAM_CPU_EPILOGUES; cpu_settings.h): unset,
// empty or "on" attaches epilogues (these, and the product epilogues of
// product_epilogue.h), "off" leaves every group in its own step (comparisons).
// PJRT_Client_Create refuses other values, naming the option or variable and the value;
// CheckEpilogueVariable checks the environment's settings as it does.
inline constexpr char kEpilogueVariable[] = "SEAM_CPU_EPILOGUES";
absl::Status CheckEpilogueVariable();
bool EpiloguesOn();

// The epilogue group `g` would be for the convolution of step `s`, or conv == -1: a group
// whose one output is max(ops(c) + residual, 0) of the f32 convolution result c, where ops
// are per-feature operations (ChannelOp: a vector broadcast along the result's feature
// dimension added, subtracted, multiplied or divided by) and the residual a tensor of c's
// shape read from memory, each part optional (the zero a broadcast constant; outside the
// residual only additions and subtractions of vectors, which commute with it), with
// nothing else among its members, no reductions with it, and c read by nothing else and no
// result.
ConvEpilogue MatchEpilogue(const ir::Program& program, const FusionPlan& plan, int s, int g);

// For each convolution step, the first later group that matches and that `fuses` accepts
// (the convolution's plan takes the epilogue: oneDNN serves the case) is marked
// Step::epilogue, with plan->epilogues[g] set, and the convolution moves down to just
// before it. Moving it down is safe: nothing but the group reads its result, and its
// operands came before it. Call before buffer assignment, which keeps the convolution's
// operands alive through the epilogue step.
void AttachEpilogues(const ir::Program& program, FusionPlan* plan,
                     absl::FunctionRef<bool(const ConvEpilogue&)> fuses);

// Before a run: folds e.channel into the weights and a bias, so that conv(x, *scaled) +
// *bias equals the operations applied to conv(x, weights). `values` are the run's value
// addresses (the vectors at values[op.value]); `weights` the convolution's, in its kernel
// layout, as `*scaled` is. Rounding differs from applying the operations one by one in the
// last bits (as when PyTorch folds a batch norm into a convolution), and non-finite vectors
// or overflowing scaled weights can give NaN where the operations would give an infinity.
void FoldChannelOps(const ir::Program& program, const ConvEpilogue& e, const uint8_t* const* values,
                    const float* weights, std::vector<float>* scaled, std::vector<float>* bias);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_FUSION_EPILOGUE_H_
