#include "src/lazy/lowering.h"

#include "absl/container/flat_hash_map.h"

namespace seam::lazy {

LoweredGraph LowerGraph(const std::vector<NodePtr>& roots) {
  LoweredGraph lowered;
  // Flat maps, sized from the last lowering: this runs at every step barrier.
  static thread_local size_t last_size = 64;
  absl::flat_hash_map<const Node*, int> index;
  index.reserve(last_size);
  lowered.program.instructions.reserve(last_size);
  absl::flat_hash_map<const DeviceValue*, int> instruction_of_value;
  // Iterative post-order: graphs of long training loops can be deep.
  std::vector<std::pair<const Node*, size_t>> stack;
  for (const NodePtr& root : roots) {
    stack.emplace_back(root.get(), 0);
    while (!stack.empty()) {
      auto& [node, next_operand] = stack.back();
      if (index.count(node)) {
        stack.pop_back();
        continue;
      }
      // A leaf is a parameter even when it keeps the op that computed it (eager mode).
      if (!node->is_leaf() && next_operand < node->operands.size()) {
        const Node* operand = node->operands[next_operand++].get();
        if (!index.count(operand)) stack.emplace_back(operand, 0);
        continue;
      }
      if (node->is_leaf()) {
        // One parameter per distinct value, even if several leaf nodes hold it.
        auto [it, inserted] = instruction_of_value.emplace(
            node->value.get(), static_cast<int>(lowered.program.instructions.size()));
        if (inserted) {
          ir::Instruction parameter;
          parameter.op = ir::Op::kParameter;
          parameter.shape = node->shape;
          parameter.parameter_index = static_cast<int64_t>(lowered.leaves.size());
          lowered.leaves.push_back(node->value);
          lowered.program.instructions.push_back(std::move(parameter));
        }
        index[node] = it->second;
        stack.pop_back();
        continue;
      }
      ir::Instruction inst;
      inst.op = node->op;
      inst.shape = node->shape;
      inst.attrs = node->attrs();
      if (node->op == ir::Op::kConstant) inst.literal = node->literal;
      for (const NodePtr& operand : node->operands)
        inst.operands.push_back(index.at(operand.get()));
      index[node] = static_cast<int>(lowered.program.instructions.size());
      lowered.program.instructions.push_back(std::move(inst));
      stack.pop_back();
    }
    lowered.program.results.push_back(index.at(root.get()));
  }
  last_size = lowered.program.instructions.size();
  return lowered;
}

}  // namespace seam::lazy
