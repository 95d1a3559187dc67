// A fusion group compiled into a loop kernel: a list of tile operations evaluated tile by
// tile (kTileElements at a time) into small per-thread scratch buffers that stay in cache;
// only the group's outputs are written to memory. The op switch runs once per operation and
// tile, outside the inner loops, so those loops are the plain ones of kernels_elementwise.cc.
// Runs of f32/f64 arithmetic where each op reads the previous one's result are one kChain
// operation: one pass keeping the running value in registers (kernels_fast.cc).
#ifndef SEAM_PLUGINS_CPU_LOOP_COMPILE_H_
#define SEAM_PLUGINS_CPU_LOOP_COMPILE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/compile/fusion.h"
#include "src/plugins/cpu/kernels/chain_jit.h"
#include "src/plugins/cpu/kernels/kernels_fast.h"

namespace seam::cpu {

inline constexpr int64_t kTileElements = 1024;

// Where a tile operation reads or writes: input k or output k of the group (in memory, at
// the tile's position), or scratch slot k (per thread, one tile long).
struct TileRef {
  enum Kind : uint8_t { kInput, kOutput, kScratch };
  Kind kind = kScratch;
  int index = 0;
};

// One op of a kChain: v = op(v, m), op(m, v) or op(v, v) (shape), m = operands[operand]
// (-1 for kBoth); the first link reads operands[0] as v.
struct ChainLink {
  int instruction = -1;  // the member it computes
  ir::Op op = ir::Op::kAdd;
  ChainShape shape = ChainShape::kLeft;
  int operand = -1;
};

struct TileOp {
  // kUnary, kBinary (arithmetic, logical and compare), kSelect, kConvert: elementwise.
  // kCopy: a reshape (or size-keeping broadcast) that must be materialised as an output.
  // kGather: a broadcast_in_dim reading its operand (an input) at repeated positions.
  // kChain: two or more f32/f64 binary ops of kernels_fast.cc in one pass, each reading
  // the previous one's result (which no other op reads): `links` in order, `operands` the
  // distinct tiles they read, the result the last link's.
  enum Kind : uint8_t { kUnary, kBinary, kSelect, kConvert, kCopy, kGather, kChain };
  Kind kind = kUnary;
  ir::Op op = ir::Op::kNeg;           // kChain: the last link's
  ir::DType dtype = ir::DType::kF32;  // operand 0's dtype (the value's for kSelect)
  ir::DType result_dtype = ir::DType::kF32;
  int element_bytes = 4;  // the size of one element of `dtype`
  int instruction = -1;   // the member it computes (kChain: the last link's)
  std::vector<TileRef> operands;
  TileRef result;
  // kGather only: the result's dimensions with unit dimensions dropped and neighbours that
  // walk the operand alike merged, and the operand's element stride for each (0: repeats).
  std::vector<int64_t> dims, strides;
  // kGather only: every tile of the result is the same (a broadcast of one element, or of a
  // pattern whose period divides kTileElements, such as a bias row of 256 repeated over the
  // rows). Its scratch slot is its own for the whole kernel, so a thread fills it on the
  // first tile of each RunTiles call and reuses it for the others.
  bool repeats = false;
  // kChain only: the links, and the same as the kernel reads them (MakeChainStep).
  std::vector<ChainLink> links;
  std::vector<ChainStep> steps;
  // kChain only: the result is an output of ActiveStreamMinBytes() or more (cpu_settings.h:
  // a quarter of the L3, at least 8 MiB) that no other op of the kernel reads; it is
  // written with non-temporal stores (docs/cpu-plugin.md, "The CPU plugin's loop kernels",
  // item "Streaming stores").
  bool stream = false;
  // kChain only: its generated code (in LoopKernel::chain_code), or null: FastChainF32/F64.
  ChainFunction chain_function = nullptr;
};

// Operations [first, end) of a kernel run by one generated function (loop_segments.h),
// its memory references in the order the function reads their addresses.
struct LoopSegment {
  int first = 0, end = 0;
  std::vector<TileRef> refs;
  SegmentFunction function = nullptr;
  // The kGather ops inside [first, end): their fills run, in order, before the function
  // (each writes a scratch slot no earlier op of the segment uses).
  std::vector<int> gathers;
  // The kGather ops inside [first, end) that are never filled: row broadcasts that only the
  // function reads, through a row reference (VectorProgram::row_shift) to their operand.
  std::vector<int> row_gathers;
  // Per reference (empty: none is a row reference): 0, or the row shift of a row reference,
  // whose address for a tile is its kernel input's plus (tile start >> shift) elements.
  std::vector<int> row_shift;
};

struct LoopKernel {
  int64_t count = 0;
  std::vector<int> inputs;                     // FusionGroup::inputs
  std::vector<int> outputs;                    // FusionGroup::outputs
  std::vector<int> input_bytes, output_bytes;  // element sizes
  std::vector<TileOp> ops;
  int scratch_slots = 0;
  bool streams = false;  // some op has `stream` set: RunLoop fences after it
  // For in-place donation (executable.cc): per input, the last op that reads it at the
  // tile's own position (-1: none), and whether a kGather reads it at other positions; per
  // output, the op that writes it.
  std::vector<int> last_read_of_input;
  std::vector<bool> gathered_input;
  std::vector<int> writer_of_output;
  // The machine code of the kernel's chains and segments (chain_jit.h): one mapping for
  // all the kernels of an executable, shared by them; null where none was generated.
  std::shared_ptr<const ChainCode> chain_code;
  // The segments with code, and for each op the segment starting there (-1: none; empty
  // when there are no segments).
  std::vector<LoopSegment> segments;
  std::vector<int> segment_at;
};

LoopKernel CompileLoop(const ir::Program& program, const FusionGroup& group);

// Runs the kernel: inputs[k] and outputs[k] are the memory of kernel.inputs[k] and
// kernel.outputs[k]. Large loops are split over the kernel threads (thread_pool.h); every
// element is computed the same way whatever the split.
void RunLoop(const LoopKernel& kernel, const uint8_t* const* inputs, uint8_t* const* outputs);

// Evaluates tiles [first, last) only, on the calling thread (a group run in chunks, with
// reductions folded in between: executable.cc).
void RunLoopTiles(const LoopKernel& kernel, const uint8_t* const* inputs, uint8_t* const* outputs,
                  int64_t first, int64_t last);

// The memory of the kernel's inputs and outputs in a run's `value` table (indexed by
// instruction), in per-thread lists reused from call to call: valid until the calling
// thread's next call (the kernel threads may read them meanwhile).
struct LoopAddresses {
  const uint8_t* const* inputs;
  uint8_t* const* outputs;
};
LoopAddresses AddressesOf(const LoopKernel& kernel, const std::vector<uint8_t*>& value);

// One line per tile operation, for the optimized dump: `%5 = multiply(s0, in1) -> out0`.
std::string DescribeLoop(const ir::Program& program, const LoopKernel& kernel);

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_LOOP_COMPILE_H_
