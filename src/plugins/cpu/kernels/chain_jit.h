// Chains (kernels_fast.h) compiled to machine code at compile time (xbyak, x86-64 with
// AVX-512F): one function per chain that keeps each block's running value in vector
// registers and applies the steps one after another with no dispatch between them, where
// FastChainF32/F64 switch on each step's code once per block and step. Each step is the
// same IEEE operation on the same lanes as in FastChainF32/F64 (maximum and minimum with
// their rules: NaN wins, +0 is larger than -0), so every element gets the same value
// either way (a NaN's payload aside). Machines without AVX-512F, other architectures and
// ThreadSanitizer builds (whose runtime cannot see into generated code) get no code: the
// chains run on FastChainF32/F64 as before. docs/cpu-plugin.md, "Generated chain code".
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
  static std::shared_ptr<const ChainCode> Compile(const std::vector<ChainSpec>& chains);

  // Chain i's function, or null where it was left out.
  ChainFunction function(size_t i) const { return i < functions_.size() ? functions_[i] : nullptr; }

 private:
  struct Generator;
  ChainCode() = default;
  std::unique_ptr<Generator> generator_;
  std::vector<ChainFunction> functions_;
  size_t bytes_ = 0;  // the mapping's size, counted against the process's budget
};

// Whether this machine and build generate chain code (AVX-512F on x86-64, no TSan).
bool ChainCodeAvailable();

// Runs `function` over the whole blocks of [0, n) elements of `dtype` and returns how many
// elements they cover; 0 (nothing done) when `stream` is set and `out` is not 64-byte
// aligned. The caller computes the rest with FastChainF32/F64.
int64_t RunChainFunction(ChainFunction function, ir::DType dtype, bool stream,
                         const uint8_t* const* operands, uint8_t* out, int64_t n);

// How many chain functions this process has generated (tests: that the code path ran).
int64_t GeneratedChainCount();

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_KERNELS_CHAIN_JIT_H_
