// bfloat16 conversions. A bf16 value is the upper 16 bits of an f32; the IR, the plugins
// and the reference evaluator store it as uint16_t and compute on it as float.
#ifndef SEAM_IR_BF16_H_
#define SEAM_IR_BF16_H_

#include <cstdint>
#include <cstring>

namespace seam::ir {

inline float BF16ToFloat(uint16_t value) {
  uint32_t bits = static_cast<uint32_t>(value) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

// Round to nearest, ties to even; overflow gives infinity, a NaN stays a (quiet) NaN.
inline uint16_t FloatToBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

}  // namespace seam::ir

#endif  // SEAM_IR_BF16_H_
