// Common-subexpression elimination: a hash table of the instructions built so far, keyed
// by everything that defines an instruction's value.
#include "src/plugins/cpu/compile/simplify_internal.h"

namespace seam::cpu {
namespace {

// FNV-1a over the fields that Instruction::operator== compares.
class Hasher {
 public:
  void Bytes(const void* data, size_t size) {
    const auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < size; ++i) {
      hash_ ^= p[i];
      hash_ *= 0x100000001b3ull;
    }
  }
  void Int(int64_t value) { Bytes(&value, sizeof(value)); }
  uint64_t hash() const { return hash_; }

 private:
  uint64_t hash_ = 0xcbf29ce484222325ull;
};

uint64_t HashInstruction(const ir::Instruction& inst) {
  Hasher h;
  h.Int(static_cast<int64_t>(inst.op));
  h.Int(static_cast<int64_t>(inst.operands.size()));
  for (int operand : inst.operands) h.Int(operand);
  h.Int(static_cast<int64_t>(inst.shape.dtype));
  h.Int(inst.shape.rank());
  for (int64_t d : inst.shape.dims) h.Int(d);
  for (const auto& [name, values] : inst.attrs) {
    h.Bytes(name.data(), name.size());
    h.Int(static_cast<int64_t>(values.size()));
    for (int64_t v : values) h.Int(v);
  }
  h.Int(inst.parameter_index);
  h.Bytes(inst.literal.bytes.data(), inst.literal.bytes.size());
  return h.hash();
}

}  // namespace

bool CseTable::Shareable(const ir::Instruction& inst) {
  return inst.op != ir::Op::kParameter && ir::OpEffect(inst.op) != ir::Effect::kCollective;
}

std::optional<int> CseTable::Find(const ir::Program& program, const ir::Instruction& inst) const {
  auto [begin, end] = by_hash_.equal_range(HashInstruction(inst));
  for (auto it = begin; it != end; ++it) {
    // operator== compares constants' bytes, so NaN payloads and -0 are told apart.
    if (program.instructions[it->second] == inst) return it->second;
  }
  return std::nullopt;
}

void CseTable::Add(const ir::Instruction& inst, int index) {
  by_hash_.emplace(HashInstruction(inst), index);
}

}  // namespace seam::cpu
