// Wide-vector tile loops for the commonest f32/f64 binary ops (kernels_fast.cc).
#ifndef SEAM_PLUGINS_CPU_KERNELS_FAST_H_
#define SEAM_PLUGINS_CPU_KERNELS_FAST_H_

#include <cstdint>

#include "src/ir/program.h"

namespace seam::cpu {

// add, subtract, multiply, divide, maximum, minimum on `n` elements; false (nothing done)
// for any other op.
bool FastBinaryF32(ir::Op op, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n);
bool FastBinaryF64(ir::Op op, const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n);

// The ops above.
bool IsFastBinary(ir::Op op);

// float32 exp and erf on `n` elements by vectorizable polynomials (kernels_math.cc; exp
// within 2 ulp, erf within 2e-7 absolute), and neg, abs, sqrt, rsqrt as the generic loops
// compute them; false (nothing done) for any other op.
bool FastUnaryF32(ir::Op op, const uint8_t* in, uint8_t* out, int64_t n);

// The versions of FastUnaryF32 (kernels_math.cc): FastUnaryF32 runs the first the machine
// has. The two FMA versions give the same bits; exp and erf in the baseline differ from
// theirs by rounding (fused multiply-adds in the polynomials), neg/abs/sqrt/rsqrt never.
enum class MathVersion : uint8_t { kAvx512Fma, kAvx2Fma, kBaseline };

// FastUnaryF32 in `version`, for tests: *available is false (and nothing done) when this
// machine or build lacks it.
bool FastUnaryF32On(MathVersion version, bool* available, ir::Op op, const uint8_t* in,
                    uint8_t* out, int64_t n);

// How a chain step takes the running value v: op(v, m), op(m, v) or op(v, v), m being one
// of the chain's operands in memory.
enum class ChainShape : uint8_t { kLeft, kRight, kBoth };

// One step of a chain as the kernel reads it: op and shape in one code (one switch per
// step), and the operand m (unused for kBoth).
struct ChainStep {
  uint8_t code = 0;
  uint8_t operand = 0;
};

// The most operands (distinct tiles in memory) one chain reads.
inline constexpr int kMaxChainOperands = 8;

// The step applying fast op `op` (IsFastBinary) in `shape`, reading operands[operand].
ChainStep MakeChainStep(ir::Op op, ChainShape shape, int operand);

// A chain of fast ops in one pass over `n` elements: v = operands[0], then each step in
// turn replaces v (kept in registers, a block of elements at a time), and out = v. Every
// element gets exactly the value the ops give one at a time. `out` may be one of the
// operands (each block is read before it is written). `stream`: write `out` with
// non-temporal stores where it is 16-byte aligned (x86; for outputs too large to stay in
// cache); the caller then calls StreamFence before anything reads `out` on another thread.
void FastChainF32(const ChainStep* steps, int count, const uint8_t* const* operands,
                  int num_operands, uint8_t* out, int64_t n, bool stream);
void FastChainF64(const ChainStep* steps, int count, const uint8_t* const* operands,
                  int num_operands, uint8_t* out, int64_t n, bool stream);

// Orders this thread's non-temporal stores before its later stores (sfence on x86, nothing
// elsewhere): called once after a loop that streamed, before it reports completion.
void StreamFence();

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_KERNELS_FAST_H_
