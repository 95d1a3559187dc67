// Which simplification passes run (simplify.h). A header of its own so that the passes'
// shared declarations (simplify_internal.h) and the entry point (simplify.h) both use it
// without including each other.
#ifndef SEAM_PLUGINS_CPU_SIMPLIFY_OPTIONS_H_
#define SEAM_PLUGINS_CPU_SIMPLIFY_OPTIONS_H_

#include <cstdint>

namespace seam::cpu {

// Which passes run. Every combination is valid; tests switch single passes on.
struct SimplifyOptions {
  // Rewrites such as x*1 -> x, neg(neg(x)) -> x, reshape to the same shape -> x, and
  // elementwise ops over equal broadcasts computed before the broadcast.
  bool identities = true;
  // Instructions whose operands are all constants become constants, computed by the
  // plugin's own kernels, when the result has at most max_fold_elements elements.
  bool fold_constants = true;
  int64_t max_fold_elements = 65536;
  // Instructions equal in op, operands, attributes, shape and value share one instruction.
  bool common_subexpressions = true;
  // Instructions that no result depends on are removed (parameters always stay).
  bool dead_code = true;
  // A dot_general reading a transpose reads the transpose's operand in place instead
  // (simplify_transpose_fold.cc), where the CPU kernels can.
  bool fold_transposes = true;
};

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_SIMPLIFY_OPTIONS_H_
