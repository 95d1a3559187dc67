#include "src/lazy/graph_key.h"

#include <cstring>

#include "src/lazy/attributes.h"

namespace seam::lazy {
namespace {

// Word-at-a-time mixing (as ir::HashProgram); only ever compared with itself.
class Mixer {
 public:
  void Int(int64_t v) {
    state_ = (state_ ^ static_cast<uint64_t>(v)) * 0x9e3779b97f4a7c15ULL;
    state_ ^= state_ >> 29;
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
  uint64_t Finish() const {
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_ = 0x243f6a8885a308d3ULL;
};

// One word per node for its kind, dtype and counts, then its dimensions: each Int() is a
// chain of dependent multiplies, so fewer words make the walk faster. The fields are
// truncated to their bit widths; a collision costs only a failed match (WalkMatches), never a
// wrong program.
static_assert(ir::kNumOps < 0xff, "kind 0xff marks a parameter in Header");

int64_t Header(int64_t kind, const ir::Shape& shape, size_t operands, size_t attrs) {
  const uint64_t word = (static_cast<uint64_t>(kind) & 0xff) |
                        (static_cast<uint64_t>(shape.dtype) & 0xff) << 8 |
                        (static_cast<uint64_t>(shape.dims.size()) & 0xffff) << 16 |
                        (static_cast<uint64_t>(operands) & 0xffff) << 32 |
                        (static_cast<uint64_t>(attrs) & 0xffff) << 48;
  return static_cast<int64_t>(word);
}

void MixDims(Mixer& h, const ir::Shape& shape) {
  for (int64_t d : shape.dims) h.Int(d);
}

}  // namespace

GraphWalk WalkGraph(const std::vector<NodePtr>& roots) {
  GraphWalk walk;
  WalkGraph(roots, walk);
  return walk;
}

void WalkGraph(const std::vector<NodePtr>& roots, GraphWalk& walk) {
  walk.nodes.clear();
  walk.operand_begin.clear();
  walk.operands.clear();
  walk.results.clear();
  walk.leaves.clear();
  walk.aliases.clear();
  // The same iterative post-order as LowerGraph, so that indices agree with its program.
  // Visited nodes and values are marked in place with this walk's epoch.
  GraphMarks marks;
  const uint64_t epoch = marks.epoch();
  static thread_local size_t last_size = 64;
  walk.nodes.reserve(last_size);
  walk.operand_begin.reserve(last_size + 1);
  walk.operands.reserve(2 * last_size);
  Mixer h;
  thread_local std::vector<std::pair<const Node*, size_t>> stack;  // empty between walks
  stack.reserve(64);
  for (const NodePtr& root : roots) {
    stack.emplace_back(root.get(), 0);
    while (!stack.empty()) {
      auto& [node, next_operand] = stack.back();
      if (node->walk_epoch == epoch) {
        stack.pop_back();
        continue;
      }
      // A leaf is a parameter whatever it was computed from. Operands already walked are
      // skipped here, without a round through the stack.
      if (!node->is_leaf()) {
        const size_t count = node->operands.size();
        const NodePtr* operands = node->operands.data();
        while (next_operand < count && operands[next_operand]->walk_epoch == epoch) {
          ++next_operand;
        }
        if (next_operand < count) {
          const Node* operand = operands[next_operand++].get();
          stack.emplace_back(operand, 0);  // `node` and `next_operand` are not used after this
          continue;
        }
      }
      const int position = static_cast<int>(walk.nodes.size());
      if (node->is_leaf()) {
        DeviceValue& value = *node->value;
        if (value.walk_epoch != epoch) {
          value.walk_epoch = epoch;
          value.walk_index = position;
          walk.nodes.push_back(node);
          walk.operand_begin.push_back(static_cast<int>(walk.operands.size()));
          h.Int(Header(0xff, node->shape, 0, 0));  // a parameter (no op has code 255)
          MixDims(h, node->shape);
          walk.leaves.push_back(node->value);
        }
        node->walk_epoch = epoch;
        node->walk_index = value.walk_index;
        stack.pop_back();
        continue;
      }
      walk.nodes.push_back(node);
      walk.operand_begin.push_back(static_cast<int>(walk.operands.size()));
      const size_t attrs = node->attributes != nullptr ? node->attributes->map.size() : 0;
      h.Int(Header(static_cast<int64_t>(node->op), node->shape, node->operands.size(), attrs));
      MixDims(h, node->shape);
      // Operand indices two to a word.
      uint64_t pair = 0;
      bool half = false;
      for (const NodePtr& operand : node->operands) {
        const int i = operand->walk_index;
        walk.operands.push_back(i);
        pair = pair << 32 | static_cast<uint32_t>(i);
        if (half) h.Int(static_cast<int64_t>(pair));
        half = !half;
      }
      if (half) h.Int(static_cast<int64_t>(pair));
      // The set's own hash covers its names and values.
      if (node->attributes != nullptr) h.Int(static_cast<int64_t>(node->attributes->hash));
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

namespace {

// Field by field, without a library call per comparison: this runs for every instruction
// of every step that hits the cache.
bool SameShape(const ir::Shape& a, const ir::Shape& b) {
  if (a.dtype != b.dtype || a.dims.size() != b.dims.size()) return false;
  for (size_t i = 0; i < a.dims.size(); ++i) {
    if (a.dims[i] != b.dims[i]) return false;
  }
  return true;
}

// Whether `literal` is a default-constructed one (what every non-constant instruction has);
// `no_dtype` is a default literal's dtype.
bool IsNoLiteral(const ir::Literal& literal, ir::DType no_dtype) {
  return literal.bytes.empty() && literal.shape.dims.empty() && literal.shape.dtype == no_dtype;
}

}  // namespace

bool WalkMatches(const GraphWalk& walk, const ir::Program& program) {
  static const ir::Program kFresh;  // what LowerGraph leaves untouched
  if (program.name != kFresh.name || program.replica_count != kFresh.replica_count ||
      program.aliases != walk.aliases || program.results != walk.results ||
      program.instructions.size() != walk.nodes.size()) {
    return false;
  }
  const ir::DType no_dtype = ir::Literal().shape.dtype;
  int64_t next_parameter = 0;
  for (size_t i = 0; i < walk.nodes.size(); ++i) {
    const Node& node = *walk.nodes[i];
    const ir::Instruction& inst = program.instructions[i];
    if (!SameShape(inst.shape, node.shape)) return false;
    if (node.is_leaf()) {
      if (inst.op != ir::Op::kParameter || inst.parameter_index != next_parameter++ ||
          !inst.operands.empty() || !inst.attrs.empty() || !IsNoLiteral(inst.literal, no_dtype)) {
        return false;
      }
      continue;
    }
    const int begin = walk.operand_begin[i], end = walk.operand_begin[i + 1];
    if (inst.op != node.op || inst.parameter_index != -1 ||
        inst.operands.size() != static_cast<size_t>(end - begin) ||
        (node.attributes == nullptr ? !inst.attrs.empty()
                                    : !SameAttributes(inst.attrs, node.attributes->map))) {
      return false;
    }
    for (int k = begin; k < end; ++k) {
      if (inst.operands[k - begin] != walk.operands[k]) return false;
    }
    if (node.op == ir::Op::kConstant ? !(inst.literal == node.literal)
                                     : !IsNoLiteral(inst.literal, no_dtype)) {
      return false;
    }
  }
  return true;
}

}  // namespace seam::lazy
