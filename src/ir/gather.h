// The dimension numbers of gather and scatter_add / scatter_replace (docs/ir.md "Gather
// and scatter"), read from a verified instruction. They follow XLA's and StableHLO's
// definitions without the batching dimensions; start indices are clamped so that the
// whole slice or window lies inside the operand (for gather as in XLA; for scatter a
// deliberate difference from XLA, which drops such updates: see docs/ir.md).
#ifndef SEAM_IR_GATHER_H_
#define SEAM_IR_GATHER_H_

#include <cstdint>
#include <vector>

#include "src/ir/program.h"

namespace seam::ir {

// gather(operand, start_indices): result dimension offset_dims[k] walks the k-th operand
// dimension that is not in collapsed_slice_dims; the other result dimensions (in order)
// walk the start_indices dimensions other than index_vector_dim. Index vector entry k
// is the start along operand dimension start_index_map[k].
struct GatherDims {
  std::vector<int64_t> offset_dims;
  std::vector<int64_t> collapsed_slice_dims;
  std::vector<int64_t> start_index_map;
  int64_t index_vector_dim = 0;
  std::vector<int64_t> slice_sizes;
};
GatherDims GatherDimsOf(const Instruction& inst);

// scatter_*(operand, scatter_indices, updates): updates dimension update_window_dims[k]
// walks the k-th operand dimension that is not in inserted_window_dims; the other updates
// dimensions walk the scatter_indices dimensions other than index_vector_dim. Index
// vector entry k is the start along operand dimension scatter_dims_to_operand_dims[k].
struct ScatterDims {
  std::vector<int64_t> update_window_dims;
  std::vector<int64_t> inserted_window_dims;
  std::vector<int64_t> scatter_dims_to_operand_dims;
  int64_t index_vector_dim = 0;
};
ScatterDims ScatterDimsOf(const Instruction& inst);

// The dimensions of `indices` that enumerate index vectors (all but index_vector_dim; an
// index_vector_dim equal to the rank means each index vector has one implicit entry).
std::vector<int64_t> IndexBatchDims(const Shape& indices, int64_t index_vector_dim);

// The length of each index vector.
int64_t IndexVectorSize(const Shape& indices, int64_t index_vector_dim);

// The first element of a slice of `size` along a dimension of `extent`, from a requested
// start: clamped into [0, extent - size].
inline int64_t ClampStart(int64_t start, int64_t extent, int64_t size) {
  const int64_t last = extent - size;
  return start < 0 ? 0 : (start > last ? last : start);
}

}  // namespace seam::ir

#endif  // SEAM_IR_GATHER_H_
