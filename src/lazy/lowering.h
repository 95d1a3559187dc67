// Lowering: the program of a pending graph, built from its nodes (what a step compiles on a
// compile-cache miss, and what seam::pending_ir_text prints).
#ifndef SEAM_LAZY_LOWERING_H_
#define SEAM_LAZY_LOWERING_H_

#include <memory>
#include <vector>

#include "src/ir/program.h"
#include "src/lazy/lazy_tensor.h"

namespace seam::lazy {

// A program built from the graphs of some nodes: results[i] is the value of roots[i];
// parameter p is the leaf value leaves[p] (distinct values, in first-use order). A leaf
// node is a parameter even when it keeps the op that computed it (eager mode).
struct LoweredGraph {
  ir::Program program;
  std::vector<std::shared_ptr<DeviceValue>> leaves;
};
LoweredGraph LowerGraph(const std::vector<NodePtr>& roots);

}  // namespace seam::lazy

#endif  // SEAM_LAZY_LOWERING_H_
