// Epilogues: a fusion group that only adds a per-feature bias and/or a residual tensor to a
// convolution's f32 result and/or takes max(x, 0) of it runs inside the convolution's oneDNN
// call (a bias operand, a sum and a relu post-op), so the result is written once, finished,
// instead of written, read back by the group's loop and written again (docs/plugins.md
// "Epilogues"). A convolution layer with a bias and a relu is then one call.
#ifndef SEAM_PLUGINS_CPU_FUSION_EPILOGUE_H_
#define SEAM_PLUGINS_CPU_FUSION_EPILOGUE_H_

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "src/ir/program.h"
#include "src/plugins/cpu/fusion.h"

namespace seam::cpu {

// SEAM_CPU_EPILOGUES: unset, empty or "on" attaches epilogues, "off" leaves every group in
// its own step (comparisons). PJRT_Client_Create refuses other values, naming the variable
// and the value.
inline constexpr char kEpilogueVariable[] = "SEAM_CPU_EPILOGUES";
absl::Status CheckEpilogueVariable();
bool EpiloguesOn();

// The epilogue group `g` would be for the convolution of step `s`, or conv == -1: a group
// whose one output is max(c + bias + residual, 0) of the f32 convolution result c, each of
// the bias, the residual and the max optional (the zero a broadcast constant, the bias a
// vector broadcast along the result's feature dimension, the residual a tensor of c's shape
// read from memory; the adds in any order and operand order: oneDNN adds the bias first),
// with nothing else among its members, no reductions with it, c read by nothing
// else and no result, and every other input computed before step s.
ConvEpilogue MatchEpilogue(const ir::Program& program, const FusionPlan& plan, int s, int g);

// For each convolution step, the first later group that matches and that `fuses` accepts
// (the convolution's plan takes the epilogue: oneDNN serves the case) moves to just after
// it, marked Step::epilogue, with plan->epilogues[g] set. Moving it up is safe: the steps
// it passes came before it, so they read nothing it writes, and its inputs come from
// earlier steps. Call before buffer assignment, which keeps the convolution's operands
// alive through the epilogue step.
void AttachEpilogues(const ir::Program& program, FusionPlan* plan,
                     absl::FunctionRef<bool(const ConvEpilogue&)> fuses);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_FUSION_EPILOGUE_H_
