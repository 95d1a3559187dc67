// Wide-vector tile loops for the commonest f32/f64 binary ops (kernels_fast.cc).
#ifndef SEAM_PLUGINS_CPU_FAST_KERNELS_H_
#define SEAM_PLUGINS_CPU_FAST_KERNELS_H_

#include <cstdint>

#include "src/ir/program.h"

namespace seam::cpu {

// add, subtract, multiply, divide, maximum, minimum on `n` elements; false (nothing done)
// for any other op.
bool FastBinaryF32(ir::Op op, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n);
bool FastBinaryF64(ir::Op op, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n);

// The ops above.
bool IsFastBinary(ir::Op op);

// Where the second op of a pair takes the first's result v: second(v, c), second(c, v) or
// second(v, v) (c unused).
enum class PairShape : uint8_t { kLeft, kRight, kBoth };

// Two of those ops in one pass: out = second(first(a, b), ...) as `shape` says. False
// (nothing done) unless both ops are fast ones.
bool FastPairF32(ir::Op first, ir::Op second, PairShape shape, const uint8_t* a,
                 const uint8_t* b, const uint8_t* c, uint8_t* out, int64_t n);
bool FastPairF64(ir::Op first, ir::Op second, PairShape shape, const uint8_t* a,
                 const uint8_t* b, const uint8_t* c, uint8_t* out, int64_t n);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_FAST_KERNELS_H_
