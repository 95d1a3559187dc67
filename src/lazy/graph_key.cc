#include "src/lazy/graph_key.h"

#include <cstring>
#include <mutex>

namespace seam::lazy {
namespace {

// Word-at-a-time mixing (as ir::HashProgram); only ever compared with itself.
class Mixer {
 public:
  void Int(int64_t v) {
    state_ = (state_ ^ static_cast<uint64_t>(v)) * 0x9e3779b97f4a7c15ULL;
    state_ ^= state_ >> 29;
  }
  void Ints(const std::vector<int64_t>& values) {
    Int(static_cast<int64_t>(values.size()));
    for (int64_t v : values) Int(v);
  }
  void Bytes(const std::vector<uint8_t>& bytes) {
    Int(static_cast<int64_t>(bytes.size()));
    size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8) {
      uint64_t word;
      std::memcpy(&word, bytes.data() + i, 8);
      Int(static_cast<int64_t>(word));
    }
    uint64_t tail = 0;
    for (size_t k = 0; i + k < bytes.size(); ++k) {
      tail |= static_cast<uint64_t>(bytes[i + k]) << (8 * k);
    }
    Int(static_cast<int64_t>(tail));
  }
  void String(const std::string& s) {
    Int(static_cast<int64_t>(s.size()));
    for (char c : s) Int(c);
  }
  uint64_t Finish() const {
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_ = 0x243f6a8885a308d3ULL;
};

void MixShape(Mixer& h, const ir::Shape& shape) {
  h.Int(static_cast<int64_t>(shape.dtype));
  h.Ints(shape.dims);
}

}  // namespace

GraphWalk WalkGraph(const std::vector<NodePtr>& roots) {
  // The same iterative post-order as LowerGraph, so that indices agree with its program.
  // Visited nodes and values are marked in place with this walk's epoch (one walk at a
  // time, since graphs of different syncs may share nodes).
  static std::mutex* walk_mu = new std::mutex();
  static uint64_t last_epoch = 0;  // guarded by walk_mu
  std::lock_guard<std::mutex> lock(*walk_mu);
  const uint64_t epoch = ++last_epoch;
  GraphWalk walk;
  static thread_local size_t last_size = 64;
  walk.nodes.reserve(last_size);
  walk.operand_begin.reserve(last_size + 1);
  walk.operands.reserve(2 * last_size);
  Mixer h;
  std::vector<std::pair<const Node*, size_t>> stack;
  stack.reserve(64);
  for (const NodePtr& root : roots) {
    stack.emplace_back(root.get(), 0);
    while (!stack.empty()) {
      auto& [node, next_operand] = stack.back();
      if (node->walk_epoch == epoch) {
        stack.pop_back();
        continue;
      }
      // A leaf is a parameter whatever it was computed from.
      if (!node->is_leaf() && next_operand < node->operands.size()) {
        const Node* operand = node->operands[next_operand++].get();
        if (operand->walk_epoch != epoch) stack.emplace_back(operand, 0);
        continue;
      }
      const int position = static_cast<int>(walk.nodes.size());
      if (node->is_leaf()) {
        DeviceValue& value = *node->value;
        if (value.walk_epoch != epoch) {
          value.walk_epoch = epoch;
          value.walk_index = position;
          walk.nodes.push_back(node);
          walk.operand_begin.push_back(static_cast<int>(walk.operands.size()));
          h.Int(-1);  // a parameter
          MixShape(h, node->shape);
          walk.leaves.push_back(node->value);
        }
        node->walk_epoch = epoch;
        node->walk_index = value.walk_index;
        stack.pop_back();
        continue;
      }
      walk.nodes.push_back(node);
      walk.operand_begin.push_back(static_cast<int>(walk.operands.size()));
      h.Int(static_cast<int64_t>(node->op));
      MixShape(h, node->shape);
      h.Int(static_cast<int64_t>(node->operands.size()));
      for (const NodePtr& operand : node->operands) {
        int i = operand->walk_index;
        walk.operands.push_back(i);
        h.Int(i);
      }
      h.Int(static_cast<int64_t>(node->attrs.size()));
      for (const auto& [name, values] : node->attrs) {
        h.String(name);
        h.Ints(values);
      }
      if (node->op == ir::Op::kConstant) h.Bytes(node->literal.bytes);
      node->walk_epoch = epoch;
      node->walk_index = position;
      stack.pop_back();
    }
    walk.results.push_back(root->walk_index);
  }
  walk.operand_begin.push_back(static_cast<int>(walk.operands.size()));
  h.Int(static_cast<int64_t>(walk.results.size()));
  for (int r : walk.results) h.Int(r);
  walk.hash = h.Finish();
  last_size = walk.nodes.size();
  return walk;
}

uint64_t WalkKey(const GraphWalk& walk) {
  if (walk.aliases.empty()) return walk.hash;
  Mixer h;
  h.Int(static_cast<int64_t>(walk.hash));
  h.Int(static_cast<int64_t>(walk.aliases.size()));
  for (const ir::Alias& alias : walk.aliases) {
    h.Int(alias.output_index);
    h.Int(alias.parameter_index);
  }
  return h.Finish();
}

bool WalkMatches(const GraphWalk& walk, const ir::Program& program) {
  static const ir::Program kFresh;  // what LowerGraph leaves untouched
  if (program.name != kFresh.name || program.replica_count != kFresh.replica_count ||
      program.aliases != walk.aliases || program.results != walk.results ||
      program.instructions.size() != walk.nodes.size()) {
    return false;
  }
  static const ir::Literal kNoLiteral;
  int64_t next_parameter = 0;
  for (size_t i = 0; i < walk.nodes.size(); ++i) {
    const Node& node = *walk.nodes[i];
    const ir::Instruction& inst = program.instructions[i];
    if (!(inst.shape == node.shape)) return false;
    if (node.is_leaf()) {
      if (inst.op != ir::Op::kParameter || inst.parameter_index != next_parameter++ ||
          !inst.operands.empty() || !inst.attrs.empty() || !(inst.literal == kNoLiteral)) {
        return false;
      }
      continue;
    }
    const int begin = walk.operand_begin[i], end = walk.operand_begin[i + 1];
    if (inst.op != node.op || inst.parameter_index != -1 ||
        inst.operands.size() != static_cast<size_t>(end - begin) || !(inst.attrs == node.attrs)) {
      return false;
    }
    for (int k = begin; k < end; ++k) {
      if (inst.operands[k - begin] != walk.operands[k]) return false;
    }
    const ir::Literal& literal = node.op == ir::Op::kConstant ? node.literal : kNoLiteral;
    if (!(inst.literal == literal)) return false;
  }
  return true;
}

}  // namespace seam::lazy
