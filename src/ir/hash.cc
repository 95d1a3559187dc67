#include "src/ir/hash.h"

#include <cstring>
#include <string>
#include <vector>

namespace seam::ir {
namespace {

// A canonical little-endian encoding in which every variable-length part is preceded by
// its length, so that different programs cannot encode to the same words; the words are
// mixed in 8 bytes at a time (multiply and xor-shift), since the compile cache hashes
// the whole program at every step barrier.
class Hasher {
 public:
  void Byte(uint8_t b) { Int(b); }
  void Int(int64_t v) {
    state_ = (state_ ^ static_cast<uint64_t>(v)) * 0x9e3779b97f4a7c15ULL;
    state_ ^= state_ >> 29;
  }
  void Bytes(const uint8_t* data, size_t n) {
    Int(static_cast<int64_t>(n));
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t word;
      std::memcpy(&word, data + i, 8);
      Int(static_cast<int64_t>(word));
    }
    uint64_t tail = 0;
    for (size_t k = 0; i + k < n; ++k) tail |= static_cast<uint64_t>(data[i + k]) << (8 * k);
    if (i < n) Int(static_cast<int64_t>(tail));
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
  // A final avalanche spreads every input bit over the whole value for callers that
  // bucket by the low bits.
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
