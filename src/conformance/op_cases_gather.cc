#include "src/conformance/op_cases_gather.h"

#include <algorithm>
#include <cstring>
#include <random>

namespace seam::conformance {
namespace {

using Dims = std::vector<int64_t>;

class Draw {
 public:
  explicit Draw(uint64_t seed) : engine_(seed) {}
  int64_t Int(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(engine_);
  }
  bool OneIn(int n) { return Int(0, n - 1) == 0; }
  // A sorted random subset of [0, n) with exactly k entries.
  Dims Choose(int64_t n, int64_t k) {
    Dims all(n);
    for (int64_t d = 0; d < n; ++d) all[d] = d;
    std::shuffle(all.begin(), all.end(), engine_);
    all.resize(k);
    std::sort(all.begin(), all.end());
    return all;
  }
  void Shuffle(Dims& dims) { std::shuffle(dims.begin(), dims.end(), engine_); }

 private:
  std::mt19937_64 engine_;
};

// The indices: batch dims `batch` with an index vector of `size` entries inserted at
// `vector_dim` (none when vector_dim == batch.size() and size == 1, the implicit form).
// Entry k indexes a dimension of extent extents[k]; values reach 2 beyond each end, so
// some are clamped and, with small extents, many repeat.
ir::Literal Indices(Draw& r, ir::DType dtype, const Dims& batch, int64_t vector_dim, bool implicit,
                    const Dims& extents) {
  Dims dims = batch;
  const int64_t size = static_cast<int64_t>(extents.size());
  if (!implicit) dims.insert(dims.begin() + vector_dim, size);
  ir::Literal literal;
  literal.shape = {dtype, dims};
  const int64_t count = literal.shape.num_elements();
  literal.bytes.assign(count * ir::DTypeSize(dtype), 0);
  int64_t inner = 1;  // the stride of the vector dimension
  for (size_t d = vector_dim + 1; d < dims.size(); ++d) inner *= dims[d];
  for (int64_t k = 0; k < count; ++k) {
    const int64_t entry = implicit ? 0 : (k / inner) % size;
    const int64_t extent = extents[entry];
    const int64_t v =
        r.OneIn(5) ? r.Int(-2, extent + 2) : r.Int(0, std::max<int64_t>(extent - 1, 0));
    if (dtype == ir::DType::kS32) {
      const int32_t v32 = static_cast<int32_t>(v);
      std::memcpy(literal.bytes.data() + k * 4, &v32, 4);
    } else {
      std::memcpy(literal.bytes.data() + k * 8, &v, 8);
    }
  }
  return literal;
}

// Shared by both ops: operand dims, the dims taken whole-extent-1 (collapsed/inserted),
// the per-dimension slice or window sizes, the index map and the indices' batch dims.
struct Layout {
  Dims operand, removed, sizes, index_map, batch;
  int64_t vector_dim = 0;
  bool implicit = false;
};

Layout DrawLayout(Draw& r, int i) {
  Layout l;
  const int64_t rank = i == 0 ? 2 : r.Int(1, 3);
  for (int64_t d = 0; d < rank; ++d) l.operand.push_back(r.Int(1, 5));
  if (i == 0) {  // an embedding table [V, D] read by a vector of token ids
    l.removed = {0};
    l.sizes = {1, l.operand[1]};
    l.index_map = {0};
    l.batch = {r.Int(3, 7)};
    l.vector_dim = 1;
    l.implicit = true;
    return l;
  }
  l.removed = r.Choose(rank, r.Int(0, rank));
  for (int64_t d = 0; d < rank; ++d) {
    const bool removed = std::find(l.removed.begin(), l.removed.end(), d) != l.removed.end();
    l.sizes.push_back(removed ? 1 : r.Int(0, l.operand[d]));
  }
  l.index_map = r.Choose(rank, r.Int(1, rank));
  r.Shuffle(l.index_map);
  const int64_t batch_rank = r.Int(0, 2);
  for (int64_t d = 0; d < batch_rank; ++d) l.batch.push_back(r.Int(1, 4));
  if (i == 1) {  // a 0-sized dimension: no index vectors, or an empty slice
    const bool all_removed = l.removed.size() == l.operand.size();
    if (all_removed || r.OneIn(2)) {
      l.batch.push_back(0);
    } else {
      l.batch.push_back(2);
      for (int64_t d = 0; d < rank; ++d) {
        if (std::find(l.removed.begin(), l.removed.end(), d) == l.removed.end()) l.sizes[d] = 0;
      }
    }
  }
  const int64_t n = static_cast<int64_t>(l.batch.size());
  l.implicit = l.index_map.size() == 1 && r.OneIn(2);
  l.vector_dim = l.implicit ? n : r.Int(0, n);
  return l;
}

}  // namespace

IndexedCase MakeIndexedCase(ir::Op op, int i, uint64_t seed) {
  Draw r(seed);
  const Layout l = DrawLayout(r, i);
  IndexedCase c;
  c.operand = l.operand;
  Dims extents;
  for (int64_t d : l.index_map) extents.push_back(l.operand[d]);
  const ir::DType index_dtype = i % 2 == 0 ? ir::DType::kS32 : ir::DType::kS64;
  c.indices = Indices(r, index_dtype, l.batch, l.vector_dim, l.implicit, extents);
  const int64_t batch_rank = static_cast<int64_t>(l.batch.size());
  const int64_t kept = static_cast<int64_t>(l.operand.size() - l.removed.size());
  const Dims positions = i == 0 ? Dims{1} : r.Choose(batch_rank + kept, kept);
  const bool gather = op == ir::Op::kGather;
  c.attrs = {{"index_vector_dim", {l.vector_dim}},
             {gather ? "collapsed_slice_dims" : "inserted_window_dims", l.removed},
             {gather ? "start_index_map" : "scatter_dims_to_operand_dims", l.index_map},
             {gather ? "offset_dims" : "update_window_dims", positions}};
  if (gather) {
    c.attrs["slice_sizes"] = l.sizes;
    return c;
  }
  // The updates: the indices' batch dims, with the window dims at `positions`.
  Dims window;
  for (size_t d = 0; d < l.operand.size(); ++d) {
    if (std::find(l.removed.begin(), l.removed.end(), d) == l.removed.end()) {
      window.push_back(l.sizes[d]);
    }
  }
  size_t next_batch = 0, next_window = 0;
  for (int64_t d = 0; d < batch_rank + kept; ++d) {
    const bool is_window = std::find(positions.begin(), positions.end(), d) != positions.end();
    c.updates.push_back(is_window ? window[next_window++] : l.batch[next_batch++]);
  }
  return c;
}

}  // namespace seam::conformance
