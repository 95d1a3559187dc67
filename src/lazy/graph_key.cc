#include "src/lazy/graph_key.h"

#include <algorithm>
#include <cstring>

#include "src/lazy/attributes.h"

namespace seam::lazy {
namespace {

uint64_t Mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
  return h ^ (h >> 29);
}

uint64_t Finalize(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The walk's key: its signature mixed four words at a time in four independent chains (a
// chain of dependent multiplies per word would take most of the walk); only ever compared
// with itself, and a collision costs only a failed match.
uint64_t HashSignature(const std::vector<uint64_t>& words) {
  uint64_t a = 0x243f6a8885a308d3ULL, b = 0x13198a2e03707344ULL, c = 0xa4093822299f31d0ULL,
           d = 0x082efa98ec4e6c89ULL;
  const uint64_t* w = words.data();
  const size_t n = words.size();
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a = Mix(a, w[i]);
    b = Mix(b, w[i + 1]);
    c = Mix(c, w[i + 2]);
    d = Mix(d, w[i + 3]);
  }
  for (; i < n; ++i) a = Mix(a, w[i]);
  return Finalize(Mix(Mix(Mix(Mix(a, b), c), d), n));
}

// Writes the walk's signature, in room made by Reserve() (one check per node, not one per
// word).
class SignatureWriter {
 public:
  explicit SignatureWriter(std::vector<uint64_t>& signature) : signature_(signature) {
    signature_.resize(signature_.capacity());  // the room a walk before made
    data_ = signature_.data();
    room_ = signature_.size();
  }
  void Reserve(size_t words) {
    if (used_ + words > room_) Grow(words);
  }
  void Put(uint64_t v) { data_[used_++] = v; }
  void PutDims(const ir::Shape& shape) {
    uint64_t* out = data_ + used_;
    for (int64_t d : shape.dims) *out++ = static_cast<uint64_t>(d);
    used_ += shape.dims.size();
  }
  void PutWords(const uint64_t* words, size_t count) {
    std::copy_n(words, count, data_ + used_);
    used_ += count;
  }
  // Size, then the bytes a word at a time (the last one zero-padded): 2 + size / 8 words.
  void PutBytes(const std::vector<uint8_t>& bytes) {
    Put(bytes.size());
    size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8) {
      uint64_t word;
      std::memcpy(&word, bytes.data() + i, 8);
      Put(word);
    }
    uint64_t tail = 0;
    for (size_t k = 0; i + k < bytes.size(); ++k) {
      tail |= static_cast<uint64_t>(bytes[i + k]) << (8 * k);
    }
    Put(tail);
  }
  // Overwrites word `index` (written before).
  void Set(size_t index, uint64_t v) { data_[index] = v; }
  // Ends the signature at the words written.
  void Finish() { signature_.resize(used_); }

 private:
  void Grow(size_t words) {
    const size_t room = std::max(2 * room_, used_ + words + 256);
    signature_.resize(room);
    data_ = signature_.data();
    room_ = room;
  }

  std::vector<uint64_t>& signature_;
  uint64_t* data_ = nullptr;
  size_t room_ = 0;
  size_t used_ = 0;
};

// One word per node for its kind, dtype and counts, then its dimensions. A count too large
// for its field makes the walk inexact: its signature then matches nothing.
static_assert(ir::kNumOps < 0xff, "kind 0xff marks a parameter in Header");

uint64_t Header(int64_t kind, const ir::Shape& shape, size_t operands, size_t attr_words,
                bool& exact) {
  const size_t rank = shape.dims.size();
  if (rank > 0xffff || operands > 0xffff || attr_words > 0xffff) exact = false;
  return (static_cast<uint64_t>(kind) & 0xff) | (static_cast<uint64_t>(shape.dtype) & 0xff) << 8 |
         (static_cast<uint64_t>(rank) & 0xffff) << 16 |
         (static_cast<uint64_t>(operands) & 0xffff) << 32 |
         (static_cast<uint64_t>(attr_words) & 0xffff) << 48;
}

// Records leaf `node` as the parameter of its value, the first time the walk meets the
// value; every leaf node of the value gets the parameter's position.
inline void WalkLeaf(const Node& node, uint64_t epoch, GraphWalk& walk, SignatureWriter& h) {
  DeviceValue& value = *node.value;
  if (value.walk_epoch != epoch) {
    value.walk_epoch = epoch;
    value.walk_index = static_cast<int>(walk.nodes.size());
    walk.nodes.push_back(&node);
    walk.operand_begin.push_back(static_cast<int>(walk.operands.size()));
    h.Reserve(1 + node.shape.dims.size());
    h.Put(Header(0xff, node.shape, 0, 0, walk.exact));  // a parameter (no op is 255)
    h.PutDims(node.shape);
    walk.leaves.push_back(node.value);
  }
  node.walk_epoch = epoch;
  node.walk_index = value.walk_index;
}

// Records `node`, whose operands are walked, as the next instruction.
inline void WalkInstruction(const Node& node, GraphWalk& walk, SignatureWriter& h) {
  bool& exact = walk.exact;
  walk.nodes.push_back(&node);
  walk.operand_begin.push_back(static_cast<int>(walk.operands.size()));
  const AttributeSet* attributes = node.attributes.get();
  const size_t attr_words = attributes != nullptr ? attributes->words.size() : 0;
  const bool constant = node.op == ir::Op::kConstant;
  h.Reserve(1 + node.shape.dims.size() + (node.operands.size() + 1) / 2 + attr_words +
            (constant ? 3 + node.literal.shape.dims.size() + node.literal.bytes.size() / 8 : 0));
  h.Put(Header(static_cast<int64_t>(node.op), node.shape, node.operands.size(), attr_words, exact));
  h.PutDims(node.shape);
  // Operand indices two to a word.
  uint64_t pair = 0;
  bool half = false;
  for (const NodePtr& operand : node.operands) {
    const int i = operand->walk_index;
    walk.operands.push_back(i);
    pair = pair << 32 | static_cast<uint32_t>(i);
    if (half) h.Put(pair);
    half = !half;
  }
  if (half) h.Put(pair);
  // The set's words go into the signature; its hash, which covers them, into the key.
  if (attributes != nullptr) h.PutWords(attributes->words.data(), attr_words);
  if (constant) {
    const ir::Shape& shape = node.literal.shape;
    h.Put(Header(0, shape, 0, 0, exact));
    h.PutDims(shape);
    h.PutBytes(node.literal.bytes);
  }
}

// This thread's scratch for WalkGraph: the walk's stack (empty between walks) and the size
// of its last graph (the next walk reserves that much). Reached through a function that is
// never inlined, so a walk holds its address in a register: in a shared library every use of
// a thread_local is a call to __tls_get_addr, which the compiler repeats after each call the
// loop makes (a few per node).
struct WalkScratch {
  std::vector<std::pair<const Node*, size_t>> stack;
  size_t last_size = 64;
};
[[gnu::noinline]] WalkScratch& ThisThreadWalkScratch() {
  thread_local WalkScratch scratch;
  return scratch;
}

}  // namespace

GraphWalk WalkGraph(const std::vector<NodePtr>& roots) {
  GraphWalk walk;
  WalkGraph(roots, walk);
  return walk;
}

void WalkGraph(const std::vector<NodePtr>& roots, GraphWalk& walk) {
  walk.Clear();
  // The same iterative post-order as LowerGraph, so that indices agree with its program.
  // Visited nodes and values are marked in place with this walk's epoch.
  GraphMarks marks;
  const uint64_t epoch = marks.epoch();
  WalkScratch& scratch = ThisThreadWalkScratch();
  const size_t last_size = scratch.last_size;
  walk.nodes.reserve(last_size);
  walk.operand_begin.reserve(last_size + 1);
  walk.operands.reserve(2 * last_size);
  SignatureWriter h(walk.signature);
  // The number of nodes first (set at the end), so that the words read back one way only.
  h.Reserve(1);
  h.Put(0);
  std::vector<std::pair<const Node*, size_t>>& stack = scratch.stack;
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
      if (node->is_leaf()) {
        WalkLeaf(*node, epoch, walk, h);
        stack.pop_back();
        continue;
      }
      const int position = static_cast<int>(walk.nodes.size());
      WalkInstruction(*node, walk, h);
      node->walk_epoch = epoch;
      node->walk_index = position;
      stack.pop_back();
    }
    walk.results.push_back(root->walk_index);
  }
  walk.operand_begin.push_back(static_cast<int>(walk.operands.size()));
  h.Reserve(1 + walk.results.size());
  h.Put(walk.results.size());
  for (int r : walk.results) h.Put(static_cast<uint64_t>(r));
  h.Set(0, walk.nodes.size());
  h.Finish();
  walk.hash = HashSignature(walk.signature);
  scratch.last_size = walk.nodes.size();
}

uint64_t WalkKey(const GraphWalk& walk) {
  if (walk.aliases.empty()) return walk.hash;
  uint64_t h = Mix(walk.hash, walk.aliases.size());
  for (const ir::Alias& alias : walk.aliases) {
    h = Mix(h, static_cast<uint64_t>(alias.output_index));
    h = Mix(h, static_cast<uint64_t>(alias.parameter_index));
  }
  return Finalize(h);
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

bool SignatureMatches(const GraphWalk& walk, absl::Span<const uint64_t> signature,
                      const ir::Program& program) {
  static const ir::Program kFresh;  // what LowerGraph leaves untouched
  if (!walk.exact || signature.size() != walk.signature.size() || program.aliases != walk.aliases ||
      program.name != kFresh.name || program.replica_count != kFresh.replica_count) {
    return false;
  }
  return signature.empty() ||
         std::memcmp(signature.data(), walk.signature.data(), signature.size() * 8) == 0;
}

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
