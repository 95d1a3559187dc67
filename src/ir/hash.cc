#include "src/ir/hash.h"

#include <string>
#include <vector>

namespace seam::ir {
namespace {

// FNV-1a over a canonical little-endian encoding in which every variable-length part is
// preceded by its length, so that different programs cannot encode to the same bytes.
class Hasher {
 public:
  void Byte(uint8_t b) {
    state_ ^= b;
    state_ *= 0x100000001b3ULL;
  }
  void Int(int64_t v) {
    auto u = static_cast<uint64_t>(v);
    for (int i = 0; i < 8; ++i) Byte(static_cast<uint8_t>(u >> (8 * i)));
  }
  void Bytes(const uint8_t* data, size_t n) {
    Int(static_cast<int64_t>(n));
    for (size_t i = 0; i < n; ++i) Byte(data[i]);
  }
  void String(const std::string& s) { Bytes(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }
  void Ints(const std::vector<int64_t>& values) {
    Int(static_cast<int64_t>(values.size()));
    for (int64_t v : values) Int(v);
  }
  void ShapeOf(const Shape& shape) {
    Byte(static_cast<uint8_t>(shape.dtype));
    Ints(shape.dims);
  }
  // In FNV-1a a low output bit depends only on low input bits; a final avalanche spreads
  // every input bit over the whole value for callers that bucket by the low bits.
  uint64_t Finish() const {
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_ = 0xcbf29ce484222325ULL;
};

}  // namespace

uint64_t HashProgram(const Program& program) {
  Hasher h;
  h.Int(program.replica_count);
  h.Int(static_cast<int64_t>(program.instructions.size()));
  for (const Instruction& inst : program.instructions) {
    h.Byte(static_cast<uint8_t>(inst.op));
    h.Int(static_cast<int64_t>(inst.operands.size()));
    for (int operand : inst.operands) h.Int(operand);
    h.ShapeOf(inst.shape);
    h.Int(static_cast<int64_t>(inst.attrs.size()));
    for (const auto& [name, values] : inst.attrs) {
      h.String(name);
      h.Ints(values);
    }
    h.Int(inst.parameter_index);
    h.ShapeOf(inst.literal.shape);
    h.Bytes(inst.literal.bytes.data(), inst.literal.bytes.size());
  }
  h.Int(static_cast<int64_t>(program.results.size()));
  for (int r : program.results) h.Int(r);
  h.Int(static_cast<int64_t>(program.aliases.size()));
  for (const Alias& alias : program.aliases) {
    h.Int(alias.output_index);
    h.Int(alias.parameter_index);
  }
  return h.Finish();
}

}  // namespace seam::ir
