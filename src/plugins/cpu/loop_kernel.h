// A fusion group compiled into a loop kernel: a list of tile operations evaluated tile by
// tile (kTileElements at a time) into small per-thread scratch buffers that stay in cache;
// only the group's outputs are written to memory. The op switch runs once per operation and
// tile, outside the inner loops, so those loops are the plain ones of kernels_elementwise.cc.
#ifndef SEAM_PLUGINS_CPU_LOOP_KERNEL_H_
#define SEAM_PLUGINS_CPU_LOOP_KERNEL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/fast_kernels.h"
#include "src/plugins/cpu/fusion.h"

namespace seam::cpu {

inline constexpr int64_t kTileElements = 1024;

// Where a tile operation reads or writes: input k or output k of the group (in memory, at
// the tile's position), or scratch slot k (per thread, one tile long).
struct TileRef {
  enum Kind : uint8_t { kInput, kOutput, kScratch };
  Kind kind = kScratch;
  int index = 0;
};

struct TileOp {
  // kUnary, kBinary (arithmetic, logical and compare), kSelect, kConvert: elementwise.
  // kCopy: a reshape (or size-keeping broadcast) that must be materialised as an output.
  // kGather: a broadcast_in_dim reading its operand (an input) at repeated positions.
  // kPair: two f32/f64 binary ops in one pass, the second reading the first's result v
  // (which no other op reads): result = op(v, c), op(c, v) or op(v, v) as pair_shape says,
  // v = paired_op(a, b); operands {a, b, c} ({a, b} for op(v, v)).
  enum Kind : uint8_t { kUnary, kBinary, kSelect, kConvert, kCopy, kGather, kPair };
  Kind kind = kUnary;
  ir::Op op = ir::Op::kNeg;
  ir::DType dtype = ir::DType::kF32;         // operand 0's dtype (the value's for kSelect)
  ir::DType result_dtype = ir::DType::kF32;
  int instruction = -1;                      // the member it computes
  ir::Op paired_op = ir::Op::kAdd;           // kPair only: the first op
  int paired_instruction = -1;               // kPair only: the first op's member
  PairShape pair_shape = PairShape::kLeft;
  std::vector<TileRef> operands;
  TileRef result;
  // kGather only: the result's dimensions with unit dimensions dropped and neighbours that
  // walk the operand alike merged, and the operand's element stride for each (0: repeats).
  std::vector<int64_t> dims, strides;
};

struct LoopKernel {
  int64_t count = 0;
  std::vector<int> inputs;   // FusionGroup::inputs
  std::vector<int> outputs;  // FusionGroup::outputs
  std::vector<int> input_bytes, output_bytes;  // element sizes
  std::vector<TileOp> ops;
  int scratch_slots = 0;
  // For in-place donation (executable.cc): per input, the last op that reads it at the
  // tile's own position (-1: none), and whether a kGather reads it at other positions; per
  // output, the op that writes it.
  std::vector<int> last_read_of_input;
  std::vector<bool> gathered_input;
  std::vector<int> writer_of_output;
};

LoopKernel CompileLoop(const ir::Program& program, const FusionGroup& group);

// Runs the kernel: inputs[k] and outputs[k] are the memory of kernel.inputs[k] and
// kernel.outputs[k]. Large loops are split over the kernel threads (thread_pool.h); every
// element is computed the same way whatever the split.
void RunLoop(const LoopKernel& kernel, const uint8_t* const* inputs, uint8_t* const* outputs);

// One line per tile operation, for the optimized dump: `%5 = multiply(s0, in1) -> out0`.
std::string DescribeLoop(const ir::Program& program, const LoopKernel& kernel);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_LOOP_KERNEL_H_
