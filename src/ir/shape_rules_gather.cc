// Shape rules of gather, scatter_add and scatter_replace (docs/ir.md "Gather and
// scatter"): XLA's and StableHLO's dimension numbers without batching dimensions.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "src/base/status_macros.h"
#include "src/ir/gather.h"
#include "src/ir/shape_rules_internal.h"

namespace seam::ir::internal {
namespace {

// The indices operand: s32 or s64, index_vector_dim in [0, rank]; returns the batch dims.
absl::StatusOr<std::vector<int64_t>> CheckIndices(const Instruction& inst, const Shape& indices) {
  if (indices.dtype != DType::kS32 && indices.dtype != DType::kS64) {
    return Error(inst,
                 absl::StrCat("operand 1 (the indices) has element type ",
                              std::string(DTypeName(indices.dtype)), ", expected s32 or s64"));
  }
  SEAM_ASSIGN_OR_RETURN(int64_t ivd, SingleValue(inst, "index_vector_dim"));
  if (ivd < 0 || ivd > indices.rank()) {
    return Error(inst, absl::StrCat("index_vector_dim=", ivd, " is out of range [0, ",
                                    indices.rank(), "] for indices ", indices.ToString()));
  }
  return IndexBatchDims(indices, ivd);
}

// Every entry of `attr` lies in [0, bound) (`what` names the array indexed).
absl::Status CheckInRange(const Instruction& inst, const std::string& attr, int64_t bound,
                          const std::string& what) {
  const std::vector<int64_t>& values = inst.attrs.at(attr);
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0 || values[i] >= bound) {
      return Error(inst, absl::StrCat(attr, "[", i, "]=", values[i], " is out of range for the ",
                                      what, " of rank ", bound));
    }
  }
  return absl::OkStatus();
}

// `attr` maps index vector entries to distinct operand dimensions, one per entry.
absl::Status CheckIndexMap(const Instruction& inst, const std::string& attr, const Shape& operand,
                           int64_t vector_size) {
  const std::vector<int64_t>& map = inst.attrs.at(attr);
  if (static_cast<int64_t>(map.size()) != vector_size) {
    return Error(inst,
                 absl::StrCat(attr, "=", Braced(map), " has ", map.size(), " entries, expected ",
                              vector_size, " (the length of an index vector)"));
  }
  SEAM_RETURN_IF_ERROR(CheckInRange(inst, attr, operand.rank(), "operand"));
  std::vector<bool> seen(operand.rank(), false);
  for (int64_t d : map) {
    if (seen[d]) return Error(inst, absl::StrCat(attr, "=", Braced(map), " repeats ", d));
    seen[d] = true;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Shape> ShapeRuleGather(const Instruction& inst, const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(CheckAttributes(inst, {"collapsed_slice_dims", "index_vector_dim",
                                              "offset_dims", "slice_sizes", "start_index_map"}));
  const Shape& operand = operands[0];
  SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> batch, CheckIndices(inst, operands[1]));
  const GatherDims g = GatherDimsOf(inst);
  SEAM_RETURN_IF_ERROR(CheckOnePerDimension(inst, "slice_sizes", operand, "operand"));
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (g.slice_sizes[d] < 0 || g.slice_sizes[d] > operand.dims[d]) {
      return Error(inst, absl::StrCat("slice_sizes[", d, "]=", g.slice_sizes[d], " must be in [0, ",
                                      operand.dims[d], "] (dimension ", d, " of operand ",
                                      operand.ToString(), ")"));
    }
  }
  SEAM_RETURN_IF_ERROR(CheckInRange(inst, "collapsed_slice_dims", operand.rank(), "operand"));
  SEAM_RETURN_IF_ERROR(CheckStrictlyIncreasing(inst, "collapsed_slice_dims"));
  for (int64_t d : g.collapsed_slice_dims) {
    if (g.slice_sizes[d] != 1) {
      return Error(inst, absl::StrCat("collapsed dimension ", d, " has slice_sizes[", d,
                                      "]=", g.slice_sizes[d], ", expected 1"));
    }
  }
  const int64_t offsets = operand.rank() - static_cast<int64_t>(g.collapsed_slice_dims.size());
  if (static_cast<int64_t>(g.offset_dims.size()) != offsets) {
    return Error(inst, absl::StrCat("offset_dims=", Braced(g.offset_dims), " has ",
                                    g.offset_dims.size(), " entries, expected ", offsets,
                                    " (operand rank minus collapsed_slice_dims)"));
  }
  const int64_t rank = static_cast<int64_t>(batch.size()) + offsets;
  SEAM_RETURN_IF_ERROR(CheckInRange(inst, "offset_dims", rank, "result"));
  SEAM_RETURN_IF_ERROR(CheckStrictlyIncreasing(inst, "offset_dims"));
  SEAM_RETURN_IF_ERROR(CheckIndexMap(inst, "start_index_map", operand,
                                     IndexVectorSize(operands[1], g.index_vector_dim)));
  Shape result{operand.dtype, std::vector<int64_t>(rank, 0)};
  std::vector<bool> is_offset(rank, false);
  for (int64_t d : g.offset_dims) is_offset[d] = true;
  size_t next_batch = 0, next_offset = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    bool collapsed = false;
    for (int64_t c : g.collapsed_slice_dims) collapsed = collapsed || c == d;
    if (!collapsed) result.dims[g.offset_dims[next_offset++]] = g.slice_sizes[d];
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (!is_offset[d]) result.dims[d] = operands[1].dims[batch[next_batch++]];
  }
  SEAM_RETURN_IF_ERROR(CheckValid(inst, result));
  return result;
}

// Operand 0 is the array updated, operand 1 the indices, operand 2 the updates; the result
// has operand 0's shape.
absl::StatusOr<Shape> ShapeRuleScatter(const Instruction& inst,
                                       const std::vector<Shape>& operands) {
  SEAM_RETURN_IF_ERROR(
      CheckAttributes(inst, {"index_vector_dim", "inserted_window_dims",
                             "scatter_dims_to_operand_dims", "update_window_dims"}));
  const Shape& operand = operands[0];
  const Shape& updates = operands[2];
  if (updates.dtype != operand.dtype) {
    return Error(inst,
                 absl::StrCat("operand 2 (the updates) ", updates.ToString(),
                              " must have the element type of operand 0 ", operand.ToString()));
  }
  SEAM_ASSIGN_OR_RETURN(std::vector<int64_t> batch, CheckIndices(inst, operands[1]));
  const ScatterDims s = ScatterDimsOf(inst);
  const int64_t windows = static_cast<int64_t>(s.update_window_dims.size());
  if (updates.rank() != static_cast<int64_t>(batch.size()) + windows) {
    return Error(inst, absl::StrCat("updates ", updates.ToString(), " have rank ", updates.rank(),
                                    ", expected ", batch.size() + windows,
                                    " (the indices' batch dimensions plus update_window_dims=",
                                    Braced(s.update_window_dims), ")"));
  }
  SEAM_RETURN_IF_ERROR(CheckInRange(inst, "update_window_dims", updates.rank(), "updates"));
  SEAM_RETURN_IF_ERROR(CheckStrictlyIncreasing(inst, "update_window_dims"));
  SEAM_RETURN_IF_ERROR(CheckInRange(inst, "inserted_window_dims", operand.rank(), "operand"));
  SEAM_RETURN_IF_ERROR(CheckStrictlyIncreasing(inst, "inserted_window_dims"));
  if (windows + static_cast<int64_t>(s.inserted_window_dims.size()) != operand.rank()) {
    return Error(inst, absl::StrCat("update_window_dims=", Braced(s.update_window_dims),
                                    " and inserted_window_dims=", Braced(s.inserted_window_dims),
                                    " must together have one entry per dimension of operand ",
                                    operand.ToString()));
  }
  SEAM_RETURN_IF_ERROR(CheckIndexMap(inst, "scatter_dims_to_operand_dims", operand,
                                     IndexVectorSize(operands[1], s.index_vector_dim)));
  std::vector<bool> is_window(updates.rank(), false);
  for (int64_t d : s.update_window_dims) is_window[d] = true;
  size_t next_batch = 0, next_window = 0;
  for (int64_t d = 0; d < updates.rank(); ++d) {
    if (is_window[d]) continue;
    const int64_t expected = operands[1].dims[batch[next_batch++]];
    if (updates.dims[d] != expected) {
      return Error(
          inst, absl::StrCat("updates ", updates.ToString(), " dimension ", d, " has size ",
                             updates.dims[d], ", expected ", expected,
                             " (the matching dimension of indices ", operands[1].ToString(), ")"));
    }
  }
  for (int64_t d = 0; d < operand.rank(); ++d) {
    bool inserted = false;
    for (int64_t i : s.inserted_window_dims) inserted = inserted || i == d;
    if (inserted) {
      if (operand.dims[d] < 1) {
        return Error(inst, absl::StrCat("inserted dimension ", d, " of operand ",
                                        operand.ToString(), " has size 0"));
      }
      continue;
    }
    const int64_t size = updates.dims[s.update_window_dims[next_window++]];
    if (size > operand.dims[d]) {
      return Error(inst,
                   absl::StrCat("the update window has size ", size, " along operand dimension ", d,
                                ", larger than operand ", operand.ToString()));
    }
  }
  return operand;
}

}  // namespace seam::ir::internal
