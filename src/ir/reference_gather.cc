#include "src/ir/reference_gather.h"

#include <algorithm>

#include "src/ir/gather.h"
#include "src/ir/reference_window.h"

namespace seam::ir::reference {
namespace {

bool Has(const std::vector<int64_t>& list, int64_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Index vector entry k for the batch position given by the non-vector dimensions `batch`
// (one value per indices dimension other than index_vector_dim, in order).
int64_t IndexEntry(const Shape& indices_shape, const std::vector<int64_t>& indices,
                   int64_t index_vector_dim, const Index& batch, int64_t k) {
  Index at;
  size_t next = 0;
  for (int64_t d = 0; d < indices_shape.rank(); ++d) {
    at.push_back(d == index_vector_dim ? k : batch[next++]);
  }
  return indices[Ravel(at, indices_shape.dims)];
}

// The extents of the updates' batch (non-window) dimensions, in order.
std::vector<int64_t> BatchDims(const Shape& updates, const ScatterDims& s) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < updates.rank(); ++d) {
    if (!Has(s.update_window_dims, d)) dims.push_back(updates.dims[d]);
  }
  return dims;
}

}  // namespace

std::vector<int64_t> GatherSources(const Instruction& inst, const Shape& operand,
                                   const Shape& indices_shape,
                                   const std::vector<int64_t>& indices) {
  const GatherDims g = GatherDimsOf(inst);
  std::vector<int64_t> sources(inst.shape.num_elements());
  for (int64_t linear = 0; linear < inst.shape.num_elements(); ++linear) {
    const Index out = Unravel(linear, inst.shape.dims);
    Index batch, offset;
    for (int64_t d = 0; d < inst.shape.rank(); ++d) {
      (Has(g.offset_dims, d) ? offset : batch).push_back(out[d]);
    }
    Index in(operand.rank(), 0);
    for (size_t k = 0; k < g.start_index_map.size(); ++k) {
      const int64_t d = g.start_index_map[k];
      const int64_t start =
          IndexEntry(indices_shape, indices, g.index_vector_dim, batch, static_cast<int64_t>(k));
      in[d] = ClampStart(start, operand.dims[d], g.slice_sizes[d]);
    }
    size_t next = 0;
    for (int64_t d = 0; d < operand.rank(); ++d) {
      if (!Has(g.collapsed_slice_dims, d)) in[d] += offset[next++];
    }
    sources[linear] = Ravel(in, operand.dims);
  }
  return sources;
}

std::vector<ScatterStep> ScatterTargets(const Instruction& inst, const Shape& operand,
                                        const Shape& indices_shape,
                                        const std::vector<int64_t>& indices, const Shape& updates) {
  const ScatterDims s = ScatterDimsOf(inst);
  Index window_size(operand.rank(), 1);
  size_t next_window = 0;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (!Has(s.inserted_window_dims, d)) {
      window_size[d] = updates.dims[s.update_window_dims[next_window++]];
    }
  }
  std::vector<ScatterStep> steps(updates.num_elements());
  for (int64_t linear = 0; linear < updates.num_elements(); ++linear) {
    const Index u = Unravel(linear, updates.dims);
    Index batch, window;
    for (int64_t d = 0; d < updates.rank(); ++d) {
      (Has(s.update_window_dims, d) ? window : batch).push_back(u[d]);
    }
    Index in(operand.rank(), 0);
    for (size_t k = 0; k < s.scatter_dims_to_operand_dims.size(); ++k) {
      const int64_t d = s.scatter_dims_to_operand_dims[k];
      const int64_t start =
          IndexEntry(indices_shape, indices, s.index_vector_dim, batch, static_cast<int64_t>(k));
      in[d] = ClampStart(start, operand.dims[d], window_size[d]);
    }
    size_t next = 0;
    for (int64_t d = 0; d < operand.rank(); ++d) {
      if (!Has(s.inserted_window_dims, d)) in[d] += window[next++];
    }
    steps[linear] = {linear, Ravel(in, operand.dims), Ravel(batch, BatchDims(updates, s))};
  }
  std::stable_sort(steps.begin(), steps.end(),
                   [](const ScatterStep& a, const ScatterStep& b) { return a.batch < b.batch; });
  return steps;
}

}  // namespace seam::ir::reference
