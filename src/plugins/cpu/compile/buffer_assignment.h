// Buffer assignment for the CPU plugin: decides at compile time where every value of a
// program lives during a run. Intermediates share one arena block per run (a value's slot is
// reused by later values once it is dead); results get blocks of their own, or, for an
// output aliased to a donated parameter, the donated block itself when computing into it is
// safe (docs/plugins.md).
#ifndef SEAM_PLUGINS_CPU_BUFFER_ASSIGNMENT_H_
#define SEAM_PLUGINS_CPU_BUFFER_ASSIGNMENT_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"
#include "src/plugins/cpu/compile/fusion.h"
#include "src/plugins/cpu/compile/loop_compile.h"

namespace seam::cpu {

struct ValueHome {
  enum Kind : uint8_t {
    kNone,       // never in memory: fused into a loop, or not needed
    kParameter,  // the argument's block (index: parameter index)
    kLiteral,    // a constant's bytes in the program (read-only)
    kArena,      // the run's arena at `offset` (slot `index`)
    kResult,     // the block of result position `index`
    kDonated,    // the donated block of parameter `index` (an in-place output)
  };
  Kind kind = kNone;
  int index = -1;
  int64_t offset = 0;
};

// How result position k gets its block.
struct OutputPlan {
  enum How : uint8_t {
    kOwn,      // a new block, computed into directly (its value's home is kResult k)
    kInPlace,  // the donated block, computed into directly (home kDonated)
    kCopy,     // a new block, copied from the value's home at the end of the run
  };
  How how = kOwn;
  int value = -1;
  // >= 0 when the output aliases this parameter and is not in place: after every copy
  // above, the output's bytes are copied into the donated block, which becomes the output.
  int copy_into_parameter = -1;
};

struct BufferPlan {
  std::vector<ValueHome> homes;       // per instruction
  std::vector<int64_t> slot_offsets;  // arena slots, 64-byte aligned
  std::vector<int64_t> slot_bytes;
  int64_t arena_bytes = 0;
  std::vector<OutputPlan> outputs;  // per result position
};

// `kernels[g]` is the compiled loop of plan.groups[g]. `finish_steps` (empty, or per
// instruction: collective_schedule.h's AllReduceFinishSteps) names the all_reduces that run
// in two halves: the operand stays untouched and the result's memory reserved until the
// finish step; the result takes its operand's slot when nothing else reads the operand
// (the reduction in place), and no donated block that such an operand is overwritten.
// `chunk_bytes` (empty, or per instruction: reduce_chunks.h's ChunkLocalBytes) sizes the slot
// of an output that lives one chunk at a time (never an in-place slot); 0: the shape's bytes.
BufferPlan AssignBuffers(const ir::Program& program, const FusionPlan& plan,
                         const std::vector<LoopKernel>& kernels,
                         const std::vector<int>& finish_steps = {},
                         const std::vector<int64_t>& chunk_bytes = {});

}  // namespace seam::cpu

#endif  // SEAM_PLUGINS_CPU_BUFFER_ASSIGNMENT_H_
