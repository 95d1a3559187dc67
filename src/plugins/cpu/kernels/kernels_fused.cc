// RunLoop: a compiled fusion group, evaluated tile by tile (loop_compile.h).
#include <algorithm>
#include <cstring>
#include <memory>

#include "src/base/sanitizers.h"
#include "src/plugins/cpu/compile/loop_compile.h"
#include "src/plugins/cpu/kernels/chain_jit.h"
#include "src/plugins/cpu/kernels/kernels.h"
#include "src/plugins/cpu/kernels/kernels_fast.h"
#include "src/plugins/cpu/kernels/target_clones.h"
#include "src/plugins/cpu/runtime/thread_pool.h"

namespace seam::cpu {
namespace {

constexpr int64_t kScratchSlotBytes = kTileElements * 8;  // the widest dtype is 8 bytes
constexpr size_t kMaxGatherRank = 32;

// Per-thread scratch, reused by every loop that thread runs.
uint8_t* Scratch(int slots) {
  thread_local std::unique_ptr<uint8_t[]> buffer;
  thread_local int64_t capacity = 0;
  const int64_t bytes = std::max(1, slots) * kScratchSlotBytes + 64;
  if (bytes > capacity) {
    buffer.reset(new uint8_t[bytes]);
    capacity = bytes;
  }
  auto address = reinterpret_cast<uintptr_t>(buffer.get());
  return buffer.get() + ((64 - address % 64) % 64);
}

template <typename T>
void SelectLoop(const uint8_t* predicate, const uint8_t* a, const uint8_t* b, uint8_t* out,
                int64_t n) {
  const auto* x = reinterpret_cast<const T*>(a);
  const auto* y = reinterpret_cast<const T*>(b);
  auto* z = reinterpret_cast<T*>(out);
  // Both sides are read and blended by a mask: no branch on the predicate (a relu mask is
  // a coin flip per element for the branch predictor), and the loop vectorizes.
  for (int64_t i = 0; i < n; ++i) {
    const T mask = static_cast<T>(T{0} - static_cast<T>(predicate[i] != 0));
    z[i] = static_cast<T>((x[i] & mask) | (y[i] & static_cast<T>(~mask)));
  }
}

// The tile helpers below come in an AVX-512, an AVX2 and a default version, picked at load
// time as kernels_fast.cc's (copies, fills and blends: the same bits from each). The fills
// of broadcast operands (a scalar, or a row's statistic along the row) were a loop of
// 16-byte stores in the baseline build: 3% of a transformer step.
#define SEAM_TILE_KERNEL SEAM_KERNEL_CLONES

SEAM_TILE_KERNEL void SelectTile(int bytes, const uint8_t* p, const uint8_t* a, const uint8_t* b,
                                 uint8_t* out, int64_t n) {
  switch (bytes) {
    case 1:
      return SelectLoop<uint8_t>(p, a, b, out, n);
    case 2:
      return SelectLoop<uint16_t>(p, a, b, out, n);
    case 4:
      return SelectLoop<uint32_t>(p, a, b, out, n);
    default:
      return SelectLoop<uint64_t>(p, a, b, out, n);
  }
}

// Elements [start, start + n) of the broadcast result described by dims/strides, read from
// `in`, into `out`: runs along the last dimension are copies (stride 1) or fills (stride 0).
template <typename T>
void GatherLoop(const uint8_t* in_bytes, const std::vector<int64_t>& dims,
                const std::vector<int64_t>& strides, int64_t start, int64_t n, uint8_t* out_bytes) {
  const auto* in = reinterpret_cast<const T*>(in_bytes);
  auto* out = reinterpret_cast<T*>(out_bytes);
  const size_t rank = dims.size();
  if (rank == 1) {
    // One run (a broadcast scalar, or an operand read in order): no index to keep.
    const int64_t step = strides[0];
    if (step == 0) {
      std::fill(out, out + n, in[0]);
    } else if (step == 1) {
      std::memcpy(out, in + start, n * sizeof(T));
    } else {
      for (int64_t i = 0; i < n; ++i) out[i] = in[(start + i) * step];
    }
    return;
  }
  if (rank == 2 && start % dims[1] == 0) {
    // Whole rows (a row broadcast, a row statistic spread along its row, a transpose): no
    // index to carry, and short runs as plain loops rather than library calls.
    const int64_t inner = dims[1], outer_step = strides[0], step = strides[1];
    const T* row = in + (start / inner) * outer_step;
    for (int64_t done = 0; done < n; done += inner, row += outer_step) {
      const int64_t run = std::min(inner, n - done);
      T* o = out + done;
      if (step == 0) {
        const T v = row[0];
        for (int64_t i = 0; i < run; ++i) o[i] = v;
      } else if (step == 1) {
        for (int64_t i = 0; i < run; ++i) o[i] = row[i];
      } else {
        for (int64_t i = 0; i < run; ++i) o[i] = row[i * step];
      }
    }
    return;
  }
  int64_t fixed[kMaxGatherRank];
  std::vector<int64_t> spill;
  int64_t* index = fixed;
  if (rank > kMaxGatherRank) {
    spill.resize(rank);
    index = spill.data();
  }
  int64_t offset = 0;
  int64_t rest = start;
  for (size_t d = rank; d-- > 0;) {
    // The first tile (often the only one) starts at index 0: no divisions.
    index[d] = rest == 0 ? 0 : rest % dims[d];
    rest = rest == 0 ? 0 : rest / dims[d];
    offset += index[d] * strides[d];
  }
  const int64_t inner = dims[rank - 1];
  const int64_t step = strides[rank - 1];
  for (int64_t done = 0; done < n;) {
    const int64_t run = std::min(inner - index[rank - 1], n - done);
    if (step == 0) {
      std::fill(out + done, out + done + run, in[offset]);
    } else if (step == 1) {
      std::memcpy(out + done, in + offset, run * sizeof(T));
    } else {
      for (int64_t i = 0; i < run; ++i) out[done + i] = in[offset + i * step];
    }
    done += run;
    offset += run * step;
    index[rank - 1] += run;
    if (index[rank - 1] < inner) continue;
    offset -= inner * step;
    index[rank - 1] = 0;
    for (size_t d = rank - 1; d-- > 0;) {
      offset += strides[d];
      if (++index[d] < dims[d]) break;
      offset -= dims[d] * strides[d];
      index[d] = 0;
    }
  }
}

SEAM_TILE_KERNEL void GatherTile(int bytes, const uint8_t* in, const TileOp& op, int64_t start,
                                 int64_t n, uint8_t* out) {
  switch (bytes) {
    case 1:
      return GatherLoop<uint8_t>(in, op.dims, op.strides, start, n, out);
    case 2:
      return GatherLoop<uint16_t>(in, op.dims, op.strides, start, n, out);
    case 4:
      return GatherLoop<uint32_t>(in, op.dims, op.strides, start, n, out);
    default:
      return GatherLoop<uint64_t>(in, op.dims, op.strides, start, n, out);
  }
}

}  // namespace

// A clone too (a dot update's bias rows, product_epilogue.cc, were 16-byte copies).
SEAM_TILE_KERNEL void GatherElements(const GatherPlan& plan, const uint8_t* in, int64_t start,
                                     int64_t n, uint8_t* out) {
  if (n <= 0) return;
  const int bytes = plan.element_bytes;
  in += plan.base * bytes;
  out += start * bytes;
  if (plan.dims.empty()) {  // a rank-0 result: its one element
    std::memcpy(out, in, static_cast<size_t>(bytes));
    return;
  }
  switch (bytes) {
    case 1:
      return GatherLoop<uint8_t>(in, plan.dims, plan.strides, start, n, out);
    case 2:
      return GatherLoop<uint16_t>(in, plan.dims, plan.strides, start, n, out);
    case 4:
      return GatherLoop<uint32_t>(in, plan.dims, plan.strides, start, n, out);
    default:
      return GatherLoop<uint64_t>(in, plan.dims, plan.strides, start, n, out);
  }
}

namespace {

// A kChain over n elements: its generated code's whole blocks, the rest on FastChainF32/F64
// (the same values element by element).
void RunChain(const TileOp& op, const uint8_t** operand, uint8_t* result, int64_t n) {
  const int count = static_cast<int>(op.steps.size());
  const int operands = static_cast<int>(op.operands.size());
  int64_t done = 0;
  if (op.chain_function != nullptr) {
    done = RunChainFunction(op.chain_function, op.dtype, op.stream, operand, result, n);
    if (done == n) return;
    for (int k = 0; k < operands; ++k) operand[k] += done * op.element_bytes;
    result += done * op.element_bytes;
  }
  (op.dtype == ir::DType::kF32 ? FastChainF32 : FastChainF64)(
      op.steps.data(), count, operand, operands, result, n - done, op.stream);
}

// Evaluates tiles [first, last) of the kernel on the calling thread.
void RunTiles(const LoopKernel& kernel, const uint8_t* const* inputs, uint8_t* const* outputs,
              int64_t first, int64_t last) {
  uint8_t* scratch = Scratch(kernel.scratch_slots);
  static_assert(kMaxChainOperands >= 3, "select reads three operands");
  const uint8_t* operand[kMaxChainOperands];
  for (int64_t tile = first; tile < last; ++tile) {
    const int64_t start = tile * kTileElements;
    const int64_t n = std::min(kTileElements, kernel.count - start);
    auto address = [&](const TileRef& r) -> uint8_t* {
      switch (r.kind) {
        case TileRef::kInput:
          return const_cast<uint8_t*>(inputs[r.index]) + start * kernel.input_bytes[r.index];
        case TileRef::kOutput:
          return outputs[r.index] + start * kernel.output_bytes[r.index];
        case TileRef::kScratch:
          break;
      }
      return scratch + r.index * kScratchSlotBytes;
    };
    const size_t count = kernel.ops.size();
    for (size_t i = 0; i < count;) {
      if (!kernel.segment_at.empty() && kernel.segment_at[i] >= 0) {
        // Ops [first, end) as one generated function (loop_segments.h).
        const LoopSegment& segment = kernel.segments[kernel.segment_at[i]];
        for (int g : segment.gathers) {
          const TileOp& fill = kernel.ops[g];
          if (!fill.repeats || tile == first) {
            GatherTile(fill.element_bytes, inputs[fill.operands[0].index], fill, start, n,
                       address(fill.result));
          }
        }
        uint8_t* refs[kMaxSegmentRefs];
        for (size_t k = 0; k < segment.refs.size(); ++k) {
          if (!segment.row_shift.empty() && segment.row_shift[k] != 0) {
            // A row reference: its input's value for the tile's first row.
            refs[k] = const_cast<uint8_t*>(inputs[segment.refs[k].index]) +
                      (start >> segment.row_shift[k]) * static_cast<int64_t>(sizeof(float));
            continue;
          }
          refs[k] = address(segment.refs[k]);
        }
        segment.function(refs, n);
        i = static_cast<size_t>(segment.end);
        continue;
      }
      const TileOp& op = kernel.ops[i++];
      uint8_t* result = address(op.result);
      if (op.kind == TileOp::kGather) {
        // A repeated broadcast's slot keeps the first tile's fill (the first tile is the
        // longest: only the last tile of the loop is short).
        if (!op.repeats || tile == first) {
          GatherTile(op.element_bytes, inputs[op.operands[0].index], op, start, n, result);
        }
        continue;
      }
      for (size_t k = 0; k < op.operands.size(); ++k) operand[k] = address(op.operands[k]);
      switch (op.kind) {
        case TileOp::kUnary:
          Unary(op.op, op.dtype, operand[0], result, n);
          break;
        case TileOp::kBinary:
          if (op.dtype == ir::DType::kF32 &&
              FastBinaryF32(op.op, operand[0], operand[1], result, n)) {
            break;
          }
          if (op.dtype == ir::DType::kF64 &&
              FastBinaryF64(op.op, operand[0], operand[1], result, n)) {
            break;
          }
          Binary(op.op, op.dtype, operand[0], operand[1], result, n);
          break;
        case TileOp::kSelect:
          SelectTile(op.element_bytes, operand[0], operand[1], operand[2], result, n);
          break;
        case TileOp::kConvert:
          Convert(op.dtype, op.result_dtype, operand[0], result, n);
          break;
        case TileOp::kCopy:
          if (operand[0] != result) {
            std::memmove(result, operand[0], n * op.element_bytes);
          }
          break;
        case TileOp::kChain:
          RunChain(op, operand, result, n);
          break;
        case TileOp::kGather:
          break;
      }
    }
  }
  if (kernel.streams) StreamFence();
}

}  // namespace

void RunLoop(const LoopKernel& kernel, const uint8_t* const* inputs, uint8_t* const* outputs) {
  if (kernel.count <= 0) return;
  const int64_t tiles = (kernel.count + kTileElements - 1) / kTileElements;
  if (kernel.count < kParallelMinimumElements || KernelThreads() <= 1) {
    return RunTiles(kernel, inputs, outputs, 0, tiles);
  }
  ParallelFor(tiles,
              [&](int64_t first, int64_t last) { RunTiles(kernel, inputs, outputs, first, last); });
}

LoopAddresses AddressesOf(const LoopKernel& kernel, const std::vector<uint8_t*>& value) {
  thread_local std::vector<const uint8_t*> inputs;
  thread_local std::vector<uint8_t*> outputs;
  // Sized once, then written by index (no capacity check per address).
  const size_t num_inputs = kernel.inputs.size(), num_outputs = kernel.outputs.size();
  if (inputs.size() < num_inputs) inputs.resize(num_inputs);
  if (outputs.size() < num_outputs) outputs.resize(num_outputs);
  const int* in = kernel.inputs.data();
  const int* out = kernel.outputs.data();
  uint8_t* const* v = value.data();
  const uint8_t** in_address = inputs.data();
  uint8_t** out_address = outputs.data();
  for (size_t k = 0; k < num_inputs; ++k) in_address[k] = v[in[k]];
  for (size_t k = 0; k < num_outputs; ++k) out_address[k] = v[out[k]];
  return {in_address, out_address};
}

void RunLoopTiles(const LoopKernel& kernel, const uint8_t* const* inputs, uint8_t* const* outputs,
                  int64_t first, int64_t last) {
  RunTiles(kernel, inputs, outputs, first, last);
}

}  // namespace seam::cpu
