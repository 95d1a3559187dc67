#include "src/ir/gather.h"

namespace seam::ir {
namespace {

int64_t Single(const Instruction& inst, const char* name) { return inst.attrs.at(name).at(0); }

}  // namespace

GatherDims GatherDimsOf(const Instruction& inst) {
  GatherDims g;
  g.offset_dims = inst.attrs.at("offset_dims");
  g.collapsed_slice_dims = inst.attrs.at("collapsed_slice_dims");
  g.start_index_map = inst.attrs.at("start_index_map");
  g.index_vector_dim = Single(inst, "index_vector_dim");
  g.slice_sizes = inst.attrs.at("slice_sizes");
  return g;
}

ScatterDims ScatterDimsOf(const Instruction& inst) {
  ScatterDims s;
  s.update_window_dims = inst.attrs.at("update_window_dims");
  s.inserted_window_dims = inst.attrs.at("inserted_window_dims");
  s.scatter_dims_to_operand_dims = inst.attrs.at("scatter_dims_to_operand_dims");
  s.index_vector_dim = Single(inst, "index_vector_dim");
  return s;
}

std::vector<int64_t> IndexBatchDims(const Shape& indices, int64_t index_vector_dim) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < indices.rank(); ++d) {
    if (d != index_vector_dim) dims.push_back(d);
  }
  return dims;
}

int64_t IndexVectorSize(const Shape& indices, int64_t index_vector_dim) {
  return index_vector_dim == indices.rank() ? 1 : indices.dims[index_vector_dim];
}

}  // namespace seam::ir
