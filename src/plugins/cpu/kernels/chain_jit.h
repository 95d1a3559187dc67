// Chains (kernels_fast.h) and segments of loop kernels compiled to machine code at compile
// time (xbyak, x86-64 with AVX-512F and FMA). A chain's function keeps each block's running
// value in vector registers and applies the steps one after another with no dispatch
// between them, where FastChainF32/F64 switch on each step's code once per block and step.
// Each step is the same IEEE operation on the same lanes as in FastChainF32/F64 (maximum
// and minimum with their rules: NaN wins, +0 is larger than -0), so every element gets the
// same value either way (a NaN's payload aside). Machines without AVX-512F or FMA, other
// architectures and ThreadSanitizer builds (whose FastUnaryF32 is the baseline version, with
// another exp) get no code: the loops run as before. docs/cpu-plugin.md, "Generated loop
// code".
#ifndef SEAM_PLUGINS_CPU_KERNELS_CHAIN_JIT_H_
#define SEAM_PLUGINS_CPU_KERNELS_CHAIN_JIT_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/kernels/kernels_fast.h"

namespace seam::cpu {

// One chain to compile: its dtype (f32 or f64), its steps (MakeChainStep), how many distinct
// operands they read, and whether it writes its result with non-temporal stores.
struct ChainSpec {
  ir::DType dtype = ir::DType::kF32;
  std::vector<ChainStep> steps;
  int num_operands = 0;
  bool stream = false;
};

// Longer chains are left to FastChainF32/F64 (their code would grow with the steps).
inline constexpr int kMaxGeneratedChainSteps = 64;

// A segment of a loop kernel as one straight-line vector program (f32): consecutive tile
// operations evaluated together, 16 elements (one 64-byte vector) at a time, each value in
// a register from the step that computes it to the last step of the segment that reads it;
// only values read after the segment (or outputs) are stored, and operands computed before
// it are read from memory. The compile side (loop_segments.cc) forms the segments; this is
// the machine's view of one.
enum class VectorOp : uint8_t {
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kMaximum,
  kMinimum,
  kNeg,
  kAbs,
  kSqrt,
  kRsqrt,  // 1 / sqrt(x), two roundings, as the generic loop
  kExp,    // FastUnaryF32's exp, instruction for instruction (kernels_math.cc, FMA version)
  kErf,    // FastUnaryF32's erf, likewise
  kMove,   // a copy (a reshape materialised in the loop)
  // Compares of two f32 values into a predicate (IEEE: with a NaN operand only kNe holds).
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kSelect,  // a ? b : c, `a` a predicate (nonzero: true), b and c f32
};

// Whether `op` is a compare (its result a predicate).
inline bool IsVectorCompare(VectorOp op) { return op >= VectorOp::kEq && op <= VectorOp::kGe; }

// A step's operand: register `index` (0 to kVectorRegisters - 1), or memory reference `index`
// (the segment's function reads its address from its reference list).
struct VectorSource {
  bool in_memory = false;
  int index = 0;
};

// dst = op(a, b) (b unused for the unary ops and kMove; kSelect reads c too), then, where
// store_to >= 0, dst is written to memory reference store_to. A predicate (a compare's
// result, kSelect's `a`) is one byte per element in memory, 0 or 1 (as the tile loops
// write it; any nonzero byte reads as true), and a 32-bit 0 or 1 per lane in a register.
struct VectorStep {
  VectorOp op = VectorOp::kMove;
  int dst = 0;
  VectorSource a, b;
  int store_to = -1;
  VectorSource c;
};

// Value registers of a segment (each a pair of vectors in the code, which runs two vectors
// at a time); the other vector registers hold constants and temporaries.
inline constexpr int kVectorRegisters = 10;
// Memory references one segment may use.
inline constexpr int kMaxSegmentRefs = 32;

// Rows of a row reference: from 2^kMinRowShift to 2^kMaxRowShift elements (a vector never
// spans two rows, and a tile, kTileElements, always starts one).
inline constexpr int kMinRowShift = 4;
inline constexpr int kMaxRowShift = 10;

struct VectorProgram {
  int num_refs = 0;
  std::vector<VectorStep> steps;
  // Per reference (empty: none of them): 0 for an array read or written element by element,
  // or s for a row reference, read only: one f32 per row of 2^s elements, element e reading
  // the value at index e >> s (a row statistic broadcast along its row, read in place
  // instead of filled into a tile first).
  std::vector<int> row_shift;
};

// A generated segment: `n` elements from each reference's address on (refs[k] is memory
// reference k at the tile's first element). Whole vectors first, then the last n % 16
// elements with masked loads and stores (nothing read or written past n).
using SegmentFunction = void (*)(uint8_t* const* refs, int64_t n);

// A generated chain: `blocks` whole blocks of kChainCodeBlockBytes from operands[0..] into
// `out` (the same rules as FastChainF32: `out` may be an operand).
using ChainFunction = void (*)(const uint8_t* const* operands, uint8_t* out, int64_t blocks);

// Bytes per block of a generated chain: four 64-byte vectors (64 f32 or 32 f64 elements).
inline constexpr int64_t kChainCodeBlockBytes = 256;

// The machine code of several chains (one loop kernel's), in one executable mapping that
// lives as long as this object.
class ChainCode {
 public:
  ~ChainCode();
  ChainCode(const ChainCode&) = delete;
  ChainCode& operator=(const ChainCode&) = delete;

  // Code for each of `chains`, or null where this machine or build generates none, no
  // chain qualifies (f32/f64, 1 to kMaxGeneratedChainSteps steps, at most kMaxChainOperands
  // operands), or the mapping fails (then the chains run as before: nothing is lost).
  // `segments` too (each compiled; a program over kMaxSegmentRefs references or with a
  // register out of range gets none).
  static std::shared_ptr<const ChainCode> Compile(const std::vector<ChainSpec>& chains,
                                                  const std::vector<VectorProgram>& segments = {});

  // Chain i's function, or null where it was left out.
  ChainFunction function(size_t i) const { return i < functions_.size() ? functions_[i] : nullptr; }
  // Segment i's function, or null.
  SegmentFunction segment(size_t i) const { return i < segments_.size() ? segments_[i] : nullptr; }

 private:
  struct Generator;
  ChainCode() = default;
  std::unique_ptr<Generator> generator_;
  std::vector<ChainFunction> functions_;
  std::vector<SegmentFunction> segments_;
  size_t bytes_ = 0;  // the mapping's size, counted against the process's budget
};

// Whether this machine and build generate chain code (x86-64 with AVX-512F, FMA and BMI2;
// no TSan).
bool ChainCodeAvailable();

// Runs `function` over the whole blocks of [0, n) elements of `dtype` and returns how many
// elements they cover; 0 (nothing done) when `stream` is set and `out` is not 64-byte
// aligned. The caller computes the rest with FastChainF32/F64.
int64_t RunChainFunction(ChainFunction function, ir::DType dtype, bool stream,
                         const uint8_t* const* operands, uint8_t* out, int64_t n);

// How many chain and segment functions this process has generated (tests: that the code
// path ran).
int64_t GeneratedChainCount();

// How many Compile calls failed to emit or map their code (the kernels then run without
// it); tests expect none.
int64_t FailedCodeCompiles();

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_KERNELS_CHAIN_JIT_H_
